// Process-wide agent state shared by the entry points, the event handlers and the JNI natives.
// Created once by StartAgent() and never destroyed: records and thread states must stay mapped for
// as long as any thread of the process can run (VMDeath is not the end of all threads).
#ifndef VTCTX_AGENT_AGENT_STATE_H_
#define VTCTX_AGENT_AGENT_STATE_H_

#include <jvmti.h>

#include <atomic>
#include <cstdint>

#include "options.h"
#include "recordPool.h"

namespace vtctx {

enum class AgentStatus { kNotLoaded, kActive, kInactive };

struct AgentState {
  jvmtiEnv* jvmti = nullptr;
  Options options;
  bool attached_late = false;
  uint64_t activated_ns = 0;  // CLOCK_MONOTONIC when the load that activated the agent returned
  std::atomic<AgentStatus> status{AgentStatus::kNotLoaded};
  std::atomic<bool> stats_written{false};
};

// The single instance (static storage, never destructed).
AgentState& Agent();

// True once the agent is active (acquire: what activation set up is visible).
inline bool AgentActive() {
  return Agent().status.load(std::memory_order_acquire) == AgentStatus::kActive;
}

// The pool used on every event. Valid once the agent is active; never freed.
inline RecordPool* g_pool = nullptr;

// When virtual threads get their record (the bind= option). Set once before events are enabled.
inline BindAt g_bind = BindAt::kFirstMount;

}  // namespace vtctx

#endif  // VTCTX_AGENT_AGENT_STATE_H_
