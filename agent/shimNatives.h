// Which Java classes get the agent's natives (jniNatives.h), and binding them.
//
// HotSpot binds a native method by name to any loaded library that defines it, agent libraries
// included, for a class of any class loader, and the JDK's native-access restriction
// (--illegal-native-access=deny, JEP 472) does not apply to agent libraries: a class that declares
// `static native int registerAttributeKey(long)` would call the agent with a long where a jstring
// is expected, and crash the JVM. So the agent binds its natives itself with RegisterNatives, which
// checks every name and full signature, return type included: a class that declares them
// otherwise gets none (NoSuchMethodError, reported once, never thrown).
//
// The one symbol the agent exports by name is the bootstrap the shim calls first
// (io.vtctx.internal.AgentBootstrap.bindAgentNatives, shimBootstrap.cpp): it binds the natives to
// the AgentNatives class the caller's loader resolves, if the agent serves where that copy comes
// from (shimOrigin.h: by default the class path's or module path's, and the OpenTelemetry Java
// agent extension's). It needs no JVMTI, so both channels bind the same way, whenever the shim
// first runs. A late attach binds the served copies that already ran (shimOrigin.h,
// LoadersWithShims). Code of other class loaders that declares the class gets
// UnsatisfiedLinkError; each refusal is counted (statusBlock.h) and the first logged.
#ifndef VTCTX_AGENT_SHIM_NATIVES_H_
#define VTCTX_AGENT_SHIM_NATIVES_H_

#include <jni.h>
#include <jvmti.h>

#include <string>

#include "options.h"

namespace vtctx {

struct ShimBinding {
  int bound = 0;      // AgentNatives classes that got the natives
  std::string error;  // one line when a class the agent serves could not get them
};

// In Agent_OnAttach (live phase): binds the shims of LoadersWithShims that `loaders` serves
// (loaded through their loader, not initialized); counts the others as refused.
ShimBinding BindShimNatives(jvmtiEnv* jvmti, JNIEnv* jni, ShimLoaders loaders);

// The bootstrap's work: `bootstrap` is what the JVM passed as the native's class argument (not
// trusted to be a class); binds the AgentNatives its loader resolves if it is served.
void BindShimNativesFor(JNIEnv* jni, jobject bootstrap, ShimLoaders loaders);

// True if `natives` (an AgentNatives class) has the natives: only the shims of such classes may be
// told that the agent is active (shimLink.h).
bool ShimNativesBound(JNIEnv* jni, jclass natives);

}  // namespace vtctx

#endif  // VTCTX_AGENT_SHIM_NATIVES_H_
