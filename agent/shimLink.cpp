#include "shimLink.h"

#include <atomic>
#include <initializer_list>

#include "classLookup.h"
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
    if (HasClassSignature(jvmti, classes[i], kAgentLinkSignature) &&
        Initialized(jvmti, classes[i]) && HasBoundNatives(jvmti, jni, classes[i]) &&
        SetFlag(jni, classes[i], field)) {
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
  jobject loader = SystemClassLoader(jni);
  jclass agent_link = loader != nullptr && ShimNativesBoundFor(jni, loader)
                          ? ClassForName(jni, kAgentLinkName, true, loader)
                          : nullptr;
  if (agent_link != nullptr && SetFlag(jni, agent_link, field)) ++outcome.shims;
  for (jobject ref : {loader, static_cast<jobject>(agent_link)}) {
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
