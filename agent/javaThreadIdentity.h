// Which Java thread calls a native, as the JDK's public API tells it: Thread.currentThread(), its
// threadId() (the id HotSpot records on the carrier for the thread it runs, and the identity
// channel's index key: vtctx/threadIndex.h) and whether it is virtual. No JVMTI.
#ifndef VTCTX_AGENT_JAVA_THREAD_IDENTITY_H_
#define VTCTX_AGENT_JAVA_THREAD_IDENTITY_H_

#include <jni.h>

#include <cstdint>
#include <optional>

namespace vtctx {

struct JavaThreadIdentity {
  uint64_t id = 0;  // Thread.threadId(): never reused in a JVM
  bool is_virtual = false;
};

// True where the JVM has virtual threads (JNI 21: JDK 21 or newer).
bool HasJni21(JNIEnv* jni);

// The calling thread's identity, or nullopt (an exception, cleared). Two calls into Java and a
// JNI query, a few hundred nanoseconds: for a thread's first publish, never per write.
std::optional<JavaThreadIdentity> CurrentJavaThreadIdentity(JNIEnv* jni);

}  // namespace vtctx

#endif  // VTCTX_AGENT_JAVA_THREAD_IDENTITY_H_
