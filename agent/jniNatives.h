// The agent's JNI natives for the shim's io.vtctx.internal.AgentNatives (jniNatives.cpp), as the
// table RegisterNatives takes (shimNatives.h binds them).
#ifndef VTCTX_AGENT_JNI_NATIVES_H_
#define VTCTX_AGENT_JNI_NATIVES_H_

#include <jni.h>

#include <span>

namespace vtctx {

// Every native AgentNatives.java declares: name, JNI signature, function.
std::span<const JNINativeMethod> AgentNativeMethods();

}  // namespace vtctx

#endif  // VTCTX_AGENT_JNI_NATIVES_H_
