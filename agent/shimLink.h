// Tells the Java shims already running in the JVM that the agent is active (late attach).
//
// Without the agent the shim publishes nothing and remembers that (io.vtctx.internal.AgentLink),
// so that its hot path costs two volatile reads. After a late attach the agent sets that memory
// itself: publishing then starts at each thread's next publish, whatever the load (carriers
// saturated by CPU-bound virtual threads, or pinned), with no thread of the shim's having to run.
//
// Not from Agent_OnAttach itself: HotSpot resolves the shim's natives in agent libraries only once
// Agent_OnAttach has returned, and a shim told earlier would call natives that do not link yet.
// A short-lived agent thread ("vtctx-attach", a daemon platform thread, so never starved by busy
// carriers) waits until they link (calling AgentNatives.isActive()), then sets the flag.
#ifndef VTCTX_AGENT_SHIM_LINK_H_
#define VTCTX_AGENT_SHIM_LINK_H_

#include <jni.h>
#include <jvmti.h>

#include <string>

namespace vtctx {

struct ShimLinkOutcome {
  int shims = 0;      // initialized AgentLink classes at the call
  std::string error;  // empty, or why the shims cannot be told
};

// If any shim has looked for the agent (an AgentNatives class is loaded), starts the thread that,
// once the natives link, sets `active` in every initialized io.vtctx.internal.AgentLink class (one
// per class loader that has the shim). A class not initialized by then needs nothing: its first
// probe finds the agent. Call from Agent_OnAttach once the agent is active.
ShimLinkOutcome TellShimsAgentActive(jvmtiEnv* jvmti, JNIEnv* jni);

}  // namespace vtctx

#endif  // VTCTX_AGENT_SHIM_LINK_H_
