// Who may call the natives that hand out memory (AgentNatives.currentRecordBuffer): the shim's own
// classes only, as far as the JVM lets the agent tell. JNI binds a native by name, so any class
// named io.vtctx.internal.AgentNatives, in any class loader, reaches the same functions, and on the
// class path any code can call a package-private method through reflection.
//
// The rule: the calling frame's class is in package io/vtctx/internal and in the same module as the
// AgentNatives class the native was called on (which implies the same class loader). A call through
// reflection or a method handle has a JDK frame there and is refused. Where it cannot tell: on the
// class path any jar may declare classes in io.vtctx.internal (a split package), and a copy of the
// shim in another class loader is the shim; such callers get what the shim gets, the view of
// their own thread's record. On the module path, io.vtctx does not open or export the package,
// and no other module can declare classes in it.
#ifndef VTCTX_AGENT_SHIM_CALLER_H_
#define VTCTX_AGENT_SHIM_CALLER_H_

#include <jni.h>
#include <jvmti.h>

#include <string_view>

namespace vtctx {

// True if `signature` (a JVMTI class signature, "Lio/vtctx/internal/Name;") names a class of the
// package io.vtctx.internal itself (not of a subpackage).
bool IsShimInternalClass(std::string_view signature);

// True if the Java frame that called the current native belongs to a class that may call the
// natives of `natives` (see the file comment). With `jvmti` its frame at depth 1 (a reflection or
// method-handle frame there is refused); without (channel=identity) StackWalker.getCallerClass(),
// which skips such frames and judges the class that used them. Costs a frame lookup and a few JNI
// calls (about a microsecond without JVMTI): for natives called once per thread, never for a
// per-write path. Logs the first refusal.
bool CalledByShim(jvmtiEnv* jvmti, JNIEnv* jni, jclass natives, const char* native_name);

}  // namespace vtctx

#endif  // VTCTX_AGENT_SHIM_CALLER_H_
