#include "shimLink.h"

#include <atomic>
#include <cstring>

#include "log.h"
#include "shimNatives.h"

namespace vtctx {
namespace {

constexpr char kAgentLinkSignature[] = "Lio/vtctx/internal/AgentLink;";
// AgentLink's private static volatile booleans (the fields' names and types are this file's
// contract with the shim).
constexpr char kActiveField[] = "active";
constexpr char kAttributesOffField[] = "attributesOff";

bool HasSignature(jvmtiEnv* jvmti, jclass klass, const char* wanted) {
  char* signature = nullptr;
  if (jvmti->GetClassSignature(klass, &signature, nullptr) != JVMTI_ERROR_NONE) return false;
  const bool match = signature != nullptr && std::strcmp(signature, wanted) == 0;
  jvmti->Deallocate(reinterpret_cast<unsigned char*>(signature));
  return match;
}

bool Initialized(jvmtiEnv* jvmti, jclass klass) {
  jint status = 0;
  return jvmti->GetClassStatus(klass, &status) == JVMTI_ERROR_NONE &&
         (status & JVMTI_CLASS_STATUS_INITIALIZED) != 0;
}

bool HasBoundNatives(jvmtiEnv* jvmti, JNIEnv* jni, jclass klass) {
  jobject loader = nullptr;
  if (jvmti->GetClassLoader(klass, &loader) != JVMTI_ERROR_NONE) return false;
  const bool bound = ShimNativesBoundFor(jni, loader);
  if (loader != nullptr) jni->DeleteLocalRef(loader);
  return bound;
}

bool SetFlag(JNIEnv* jni, jclass agent_link, const char* field) {
  // An initialized class: GetStaticFieldID runs no initializer.
  jfieldID active = jni->GetStaticFieldID(agent_link, field, "Z");
  if (active == nullptr) {
    jni->ExceptionClear();  // NoSuchFieldError: a shim of another shape
    return false;
  }
  // Everything the agent set up (its status above all, read by every native) is ordered before a
  // thread can see active == true: JNI's field store itself is plain.
  std::atomic_thread_fence(std::memory_order_release);
  jni->SetStaticBooleanField(agent_link, active, JNI_TRUE);
  return true;
}

ShimLinkOutcome SetInBoundShims(jvmtiEnv* jvmti, JNIEnv* jni, const char* field) {
  ShimLinkOutcome outcome;
  jint count = 0;
  jclass* classes = nullptr;
  if (jvmtiError err = jvmti->GetLoadedClasses(&count, &classes); err != JVMTI_ERROR_NONE) {
    outcome.error = "GetLoadedClasses failed with JVMTI error " + std::to_string(err);
    return outcome;
  }
  for (jint i = 0; i < count; ++i) {
    if (HasSignature(jvmti, classes[i], kAgentLinkSignature) && Initialized(jvmti, classes[i]) &&
        HasBoundNatives(jvmti, jni, classes[i]) && SetFlag(jni, classes[i], field)) {
      ++outcome.shims;
    }
    jni->DeleteLocalRef(classes[i]);
  }
  jvmti->Deallocate(reinterpret_cast<unsigned char*>(classes));
  LogDebug("%d running shims told %s", outcome.shims, field);
  return outcome;
}

}  // namespace

ShimLinkOutcome TellShimsAgentActive(jvmtiEnv* jvmti, JNIEnv* jni) {
  return SetInBoundShims(jvmti, jni, kActiveField);
}

ShimLinkOutcome TellShimsAttributesOff(jvmtiEnv* jvmti, JNIEnv* jni) {
  return SetInBoundShims(jvmti, jni, kAttributesOffField);
}

}  // namespace vtctx
