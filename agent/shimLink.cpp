#include "shimLink.h"

#include <atomic>
#include <cstring>

#include "log.h"
#include "shimNatives.h"

namespace vtctx {
namespace {

constexpr char kAgentLinkSignature[] = "Lio/vtctx/internal/AgentLink;";
constexpr char kAgentLinkName[] = "io.vtctx.internal.AgentLink";
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
  // An initialized class: GetStaticFieldID runs no initializer (and AgentLink's runs no code).
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

// Without JVMTI: the system class loader's AgentLink only, initialized here if it is loaded but
// not yet (its initializer runs no code) and loaded if it is not (a shim on the class path that
// has not run yet: then its first probe would find the agent anyway).
ShimLinkOutcome SetInSystemShim(JNIEnv* jni, const char* field) {
  ShimLinkOutcome outcome;
  jclass class_class = jni->FindClass("java/lang/Class");
  jclass loader_class = jni->FindClass("java/lang/ClassLoader");
  jmethodID for_name =
      class_class
          ? jni->GetStaticMethodID(class_class, "forName",
                                   "(Ljava/lang/String;ZLjava/lang/ClassLoader;)Ljava/lang/Class;")
          : nullptr;
  jmethodID system = loader_class ? jni->GetStaticMethodID(loader_class, "getSystemClassLoader",
                                                           "()Ljava/lang/ClassLoader;")
                                  : nullptr;
  jobject loader = system ? jni->CallStaticObjectMethod(loader_class, system) : nullptr;
  jstring name = jni->NewStringUTF(kAgentLinkName);
  jclass agent_link = nullptr;
  if (for_name != nullptr && loader != nullptr && name != nullptr &&
      ShimNativesBoundFor(jni, loader)) {
    agent_link = static_cast<jclass>(
        jni->CallStaticObjectMethod(class_class, for_name, name, JNI_TRUE, loader));
  }
  if (jni->ExceptionCheck()) {  // no shim there (ClassNotFoundException)
    jni->ExceptionClear();
    agent_link = nullptr;
  }
  if (agent_link != nullptr && SetFlag(jni, agent_link, field)) ++outcome.shims;
  for (jobject ref : {static_cast<jobject>(class_class), static_cast<jobject>(loader_class), loader,
                      static_cast<jobject>(name), static_cast<jobject>(agent_link)}) {
    if (ref != nullptr) jni->DeleteLocalRef(ref);
  }
  return outcome;
}

}  // namespace

ShimLinkOutcome TellShimsAgentActive(jvmtiEnv* jvmti, JNIEnv* jni) {
  return jvmti != nullptr ? SetInBoundShims(jvmti, jni, kActiveField)
                          : SetInSystemShim(jni, kActiveField);
}

ShimLinkOutcome TellShimsAttributesOff(jvmtiEnv* jvmti, JNIEnv* jni) {
  return jvmti != nullptr ? SetInBoundShims(jvmti, jni, kAttributesOffField)
                          : SetInSystemShim(jni, kAttributesOffField);
}

}  // namespace vtctx
