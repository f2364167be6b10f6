#include "shimLink.h"

#include <algorithm>
#include <atomic>
#include <vector>

#include "classLookup.h"
#include "log.h"
#include "shimNatives.h"
#include "shimOrigin.h"

namespace vtctx {
namespace {

// AgentLink's private static volatile booleans (the fields' names and types are this file's
// contract with the shim).
constexpr char kActiveField[] = "active";
constexpr char kAttributesOffField[] = "attributesOff";

bool SetFlag(JNIEnv* jni, jclass agent_link, const char* field) {
  // AgentLink's initializer runs no code: GetStaticFieldID may initialize it here.
  jfieldID flag = jni->GetStaticFieldID(agent_link, field, "Z");
  if (flag == nullptr) {
    jni->ExceptionClear();  // NoSuchFieldError: a shim of another shape
    return false;
  }
  // Everything the agent set up (its status above all, read by every native) is ordered before a
  // thread can see the flag: JNI's field store itself is plain.
  std::atomic_thread_fence(std::memory_order_release);
  jni->SetStaticBooleanField(agent_link, flag, JNI_TRUE);
  return true;
}

// Sets `field` in the AgentLink of every shim of LoadersWithShims whose natives are bound. A shim
// whose AgentLink is not loaded yet needs nothing: its first probe finds the agent.
ShimLinkOutcome SetInBoundShims(jvmtiEnv* jvmti, JNIEnv* jni, ShimLoaders loaders,
                                const char* field) {
  ShimLinkOutcome outcome;
  std::vector<jclass> told;  // two loaders may resolve the same shim (a loader and its parent)
  for (jobject loader : LoadersWithShims(jvmti, jni, loaders)) {
    jclass natives = ClassForName(jni, kAgentNativesName, false, loader);
    jclass link = natives != nullptr && ShimNativesBound(jni, natives)
                      ? ClassForName(jni, kAgentLinkName, false, loader)
                      : nullptr;
    const bool known = link != nullptr && std::any_of(told.begin(), told.end(), [&](jclass t) {
                         return jni->IsSameObject(t, link);
                       });
    if (link != nullptr && !known && SetFlag(jni, link, field)) {
      ++outcome.shims;
      told.push_back(link);
      link = nullptr;  // kept in `told` until the end
    }
    DeleteLocalRefs(jni, {loader, natives, link});
  }
  for (jclass link : told) jni->DeleteLocalRef(link);
  LogDebug("%d running shims told %s", outcome.shims, field);
  return outcome;
}

}  // namespace

ShimLinkOutcome TellShimsAgentActive(jvmtiEnv* jvmti, JNIEnv* jni, ShimLoaders loaders) {
  return SetInBoundShims(jvmti, jni, loaders, kActiveField);
}

ShimLinkOutcome TellShimsAttributesOff(jvmtiEnv* jvmti, JNIEnv* jni, ShimLoaders loaders) {
  return SetInBoundShims(jvmti, jni, loaders, kAttributesOffField);
}

}  // namespace vtctx
