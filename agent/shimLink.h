// Tells the Java shims already running in the JVM that the agent is active (late attach).
//
// Without the agent the shim publishes nothing and remembers that (io.vtctx.internal.AgentLink),
// so that its hot path costs two volatile reads. After a late attach the agent sets that memory
// itself, from Agent_OnAttach once its natives are bound (shimNatives.h): publishing then starts at
// each thread's next publish, whatever the load (carriers saturated by CPU-bound virtual threads,
// or pinned), with no thread of the shim's having to run. Only the shims whose AgentNatives got the
// natives are told: another would call natives it does not have.
#ifndef VTCTX_AGENT_SHIM_LINK_H_
#define VTCTX_AGENT_SHIM_LINK_H_

#include <jni.h>
#include <jvmti.h>

#include <string>

#include "options.h"

namespace vtctx {

struct ShimLinkOutcome {
  int shims = 0;      // AgentLink classes told
  std::string error;  // empty, or why the shims cannot be told
};

// Sets `active` in the io.vtctx.internal.AgentLink of every shim the attach looked at whose
// AgentNatives has the natives (shimOrigin.h, LoadersWithShims). Without JVMTI (`jvmti` null:
// channel=identity) those are the class path's and the OpenTelemetry Java agent extension's; a shim
// of another loader served with shim_loaders=any that probed before the attach stays off until the
// JVM restarts (shim.md).
ShimLinkOutcome TellShimsAgentActive(jvmtiEnv* jvmti, JNIEnv* jni, ShimLoaders loaders);

// Sets `attributesOff` in the same classes: the shims stop writing record attributes and clear
// those they find (writerWatch.h). A class initialized later learns it at registration (the agent
// then refuses every key). Any thread attached to the JVM may call it.
ShimLinkOutcome TellShimsAttributesOff(jvmtiEnv* jvmti, JNIEnv* jni, ShimLoaders loaders);

}  // namespace vtctx

#endif  // VTCTX_AGENT_SHIM_LINK_H_
