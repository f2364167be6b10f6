// Finding the shim's classes from native code: by name through a class loader (JNI) and by
// signature among the loaded classes (JVMTI). Every lookup clears the exception it may raise and
// answers null or false instead: the agent never throws into the JVM.
#ifndef VTCTX_AGENT_CLASS_LOOKUP_H_
#define VTCTX_AGENT_CLASS_LOOKUP_H_

#include <jni.h>
#include <jvmti.h>

#include <initializer_list>

namespace vtctx {

// The shim's classes the agent looks up (their names are the agent's contract with the shim).
inline constexpr char kAgentNativesName[] = "io.vtctx.internal.AgentNatives";
inline constexpr char kAgentLinkName[] = "io.vtctx.internal.AgentLink";
inline constexpr char kAgentLinkSignature[] = "Lio/vtctx/internal/AgentLink;";

// ClassLoader.getSystemClassLoader() (a local reference), or null.
jobject SystemClassLoader(JNIEnv* jni);

// Deletes each non-null local reference of `refs`.
void DeleteLocalRefs(JNIEnv* jni, std::initializer_list<jobject> refs);

// klass.getClassLoader() (a local reference), or null for the boot loader or on failure.
jobject DefiningLoader(JNIEnv* jni, jclass klass);

// Class.forName(name, initialize, loader) (a local reference), or null if `loader` resolves no
// such class.
jclass ClassForName(JNIEnv* jni, const char* name, bool initialize, jobject loader);

// True if `klass` has the JVM type signature `signature` ("Lio/vtctx/internal/AgentLink;").
bool HasClassSignature(jvmtiEnv* jvmti, jclass klass, const char* signature);

}  // namespace vtctx

#endif  // VTCTX_AGENT_CLASS_LOOKUP_H_
