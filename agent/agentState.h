// Process-wide agent state shared by the entry points, the event handlers and the JNI natives.
// Created once by StartAgent() and never destroyed: records and thread states must stay mapped for
// as long as any thread of the process can run (VMDeath is not the end of all threads).
#ifndef VTCTX_AGENT_AGENT_STATE_H_
#define VTCTX_AGENT_AGENT_STATE_H_

#include <jvmti.h>

#include <atomic>

#include "options.h"
#include "recordPool.h"

namespace vtctx {

enum class AgentStatus { kNotLoaded, kActive, kInactive };

struct AgentState {
  jvmtiEnv* jvmti = nullptr;
  Options options;
  RecordPool* pool = nullptr;
  bool attached_late = false;
  std::atomic<AgentStatus> status{AgentStatus::kNotLoaded};
  std::atomic<bool> stats_written{false};
};

// The single instance (static storage, never destructed).
AgentState& Agent();

// The pool used on every event. Valid once the agent is active; never freed.
inline RecordPool* g_pool = nullptr;

// True when records are bound at VirtualThreadStart: a first Mount without a record then means
// the thread predates a late attach. Set once before events are enabled.
inline bool g_bind_at_start = false;

}  // namespace vtctx

#endif  // VTCTX_AGENT_AGENT_STATE_H_
