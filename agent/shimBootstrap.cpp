// The agent's only exported JNI function: io.vtctx.internal.AgentBootstrap.bindAgentNatives()
// (shimNatives.h). HotSpot binds it by name to a class of that name in any loader, however that
// class declares it, so it is written to be harmless under any declaration: it reads no argument
// but the class (checked to be one: an instance method would pass its receiver) and returns a
// 64-bit zero, which reads as void, false, 0 or null whatever return type the caller declared.
// This file does not include the JNI header javac generates for AgentBootstrap, on purpose.
#include <jni.h>

#include "agentState.h"
#include "shimNatives.h"

extern "C" JNIEXPORT jlong JNICALL
Java_io_vtctx_internal_AgentBootstrap_bindAgentNatives(JNIEnv* jni, jobject klass) {
  if (vtctx::AgentActive() && klass != nullptr) {
    vtctx::BindShimNativesFor(jni, klass, vtctx::Agent().options.shim_loaders);
  }
  return 0;
}
