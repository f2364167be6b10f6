// Tells the Java shims already running in the JVM that the agent is active (late attach).
//
// Without the agent the shim publishes nothing and remembers that (io.vtctx.internal.AgentLink),
// so that its hot path costs two volatile reads. After a late attach the agent sets that memory
// itself, from Agent_OnAttach once its natives are bound (shimNatives.h): publishing then starts at
// each thread's next publish, whatever the load (carriers saturated by CPU-bound virtual threads,
// or pinned), with no thread of the shim's having to run. Only the shims whose class loader got the
// natives are told: another would call natives it does not have.
#ifndef VTCTX_AGENT_SHIM_LINK_H_
#define VTCTX_AGENT_SHIM_LINK_H_

#include <jni.h>
#include <jvmti.h>

#include <string>

namespace vtctx {

struct ShimLinkOutcome {
  int shims = 0;      // AgentLink classes told
  std::string error;  // empty, or why the shims cannot be told
};

// Sets `active` in every initialized io.vtctx.internal.AgentLink class whose loader's AgentNatives
// has the natives. A class not initialized yet needs nothing: its first probe finds the agent.
// Without JVMTI (`jvmti` null: channel=identity) only the system class loader's is told; a shim of
// another loader finds the agent at its first probe, or, if it probed before the attach, stays off
// until the JVM restarts (shim.md).
ShimLinkOutcome TellShimsAgentActive(jvmtiEnv* jvmti, JNIEnv* jni);

// Sets `attributesOff` in the same classes: the shims stop writing record attributes and clear
// those they find (writerWatch.h). A class initialized later learns it at registration (the agent
// then refuses every key). Any thread attached to the JVM may call it.
ShimLinkOutcome TellShimsAttributesOff(jvmtiEnv* jvmti, JNIEnv* jni);

}  // namespace vtctx

#endif  // VTCTX_AGENT_SHIM_LINK_H_
