// Publishes the agent's OTEP 4719 process context at load (startup or attach), once per process.
// See docs/process-context.md.
#ifndef VTCTX_AGENT_PROCESS_CONTEXT_INIT_H_
#define VTCTX_AGENT_PROCESS_CONTEXT_INIT_H_

#include <string>

#include "options.h"
#include "processContextPublisher.h"
#include "systemProperty.h"

namespace vtctx {

struct ProcessContextOutcome {
  std::string error;    // empty on success; else one line: why nothing was published
  std::string summary;  // on success, a few words for the agent's "active" line
};

// Resolves the resource attributes (resourceAttributes.h) from `options`, the JVM's system
// properties (`properties`) and the environment, then publishes them with options.attribute_keys
// pre-registered. Idempotent: once a context is published, later calls only return its summary.
// Logs (error level) configured resource attributes that had to be discarded. Not thread-safe
// against itself (load paths only). The payload's vtctx.* extra attributes name the version,
// `load` ("startup" or "attached"), `options_text` (the options as given, without report=), the
// channel and, unless null, the thread index's address (vtctx/threadIndex.h).
ProcessContextOutcome PublishProcessContextOnce(const PropertyReader& properties,
                                                const Options& options, const char* load,
                                                const std::string& options_text,
                                                const void* thread_index);

// Without JVMTI the system properties are unknown at Agent_OnLoad: once a thread can read them,
// the resource is resolved again and republished if that changes it (channel=identity).
void RefreshProcessContextResource(const PropertyReader& properties);

// The published context, or null if none was published. Never freed.
ProcessContextPublisher* PublishedProcessContext();

}  // namespace vtctx

#endif  // VTCTX_AGENT_PROCESS_CONTEXT_INIT_H_
