#include "extensionEvents.h"

#include <cstring>

namespace vtctx {
namespace {

std::string CheckSignature(const jvmtiExtensionEventInfo& e) {
  const std::string name = e.id;
  if (e.param_count != 2) {
    return name + " has " + std::to_string(e.param_count) +
           " parameters, expected 2 (JNIEnv*, jthread)";
  }
  const jvmtiParamInfo& env = e.params[0];
  const jvmtiParamInfo& thread = e.params[1];
  if (env.kind != JVMTI_KIND_IN_PTR || env.base_type != JVMTI_TYPE_JNIENV) {
    return name + " parameter 1 is not JNIEnv* (kind " + std::to_string(env.kind) + ", type " +
           std::to_string(env.base_type) + ")";
  }
  if (thread.kind != JVMTI_KIND_IN || thread.base_type != JVMTI_TYPE_JTHREAD) {
    return name + " parameter 2 is not jthread (kind " + std::to_string(thread.kind) + ", type " +
           std::to_string(thread.base_type) + ")";
  }
  return {};
}

}  // namespace

std::string FindMountEvents(const jvmtiExtensionEventInfo* events, jint count,
                            MountEventIndexes* out) {
  MountEventIndexes found;
  for (jint i = 0; i < count; ++i) {
    const jvmtiExtensionEventInfo& e = events[i];
    if (e.id == nullptr) continue;
    jint* slot = std::strcmp(e.id, kMountEventId) == 0     ? &found.mount
                 : std::strcmp(e.id, kUnmountEventId) == 0 ? &found.unmount
                                                           : nullptr;
    if (slot == nullptr) continue;
    if (std::string error = CheckSignature(e); !error.empty()) return error;
    *slot = e.extension_event_index;
  }
  if (found.mount < 0 || found.unmount < 0) {
    return std::string("this JVM does not offer the ") +
           (found.mount < 0 ? kMountEventId : kUnmountEventId) +
           " extension event (HotSpot JDK 21+ has it)";
  }
  *out = found;
  return {};
}

std::string LookupMountEvents(jvmtiEnv* jvmti, MountEventIndexes* out) {
  jint count = 0;
  jvmtiExtensionEventInfo* events = nullptr;
  if (jvmtiError err = jvmti->GetExtensionEvents(&count, &events); err != JVMTI_ERROR_NONE) {
    return "GetExtensionEvents failed with JVMTI error " + std::to_string(err);
  }
  std::string result = FindMountEvents(events, count, out);
  auto release = [&](void* p) { jvmti->Deallocate(static_cast<unsigned char*>(p)); };
  for (jint i = 0; i < count; ++i) {
    for (jint p = 0; p < events[i].param_count; ++p) release(events[i].params[p].name);
    release(events[i].params);
    release(events[i].id);
    release(events[i].short_description);
  }
  release(events);
  return result;
}

}  // namespace vtctx
