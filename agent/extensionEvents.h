// Finds HotSpot's VirtualThreadMount/Unmount extension events and checks their signature.
// Pure logic over the JVM's event table, so it is unit-tested without a JVM.
#ifndef VTCTX_AGENT_EXTENSION_EVENTS_H_
#define VTCTX_AGENT_EXTENSION_EVENTS_H_

#include <jvmti.h>

#include <string>

namespace vtctx {

inline constexpr const char* kMountEventId = "com.sun.hotspot.events.VirtualThreadMount";
inline constexpr const char* kUnmountEventId = "com.sun.hotspot.events.VirtualThreadUnmount";

struct MountEventIndexes {
  jint mount = -1;
  jint unmount = -1;
};

// Looks both events up by id (indexes differ between JDK builds) and checks that each takes
// exactly (JNIEnv* as IN_PTR JNIENV, jthread as IN JTHREAD), the shape our callbacks assume.
// Returns an empty string and fills `out` on success, else one line saying what is wrong.
std::string FindMountEvents(const jvmtiExtensionEventInfo* events, jint count,
                            MountEventIndexes* out);

// Asks the JVM for its extension events, runs FindMountEvents and frees the JVM's table.
std::string LookupMountEvents(jvmtiEnv* jvmti, MountEventIndexes* out);

}  // namespace vtctx

#endif  // VTCTX_AGENT_EXTENSION_EVENTS_H_
