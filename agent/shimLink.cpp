#include "shimLink.h"

#include <time.h>

#include <atomic>
#include <cstring>
#include <vector>

#include "log.h"

namespace vtctx {
namespace {

constexpr char kAgentLinkSignature[] = "Lio/vtctx/internal/AgentLink;";
constexpr char kAgentNativesSignature[] = "Lio/vtctx/internal/AgentNatives;";
constexpr char kActiveField[] = "active";  // AgentLink: private static volatile boolean
constexpr int kLinkWaitMillis = 10'000;    // natives link within microseconds of the return

// What the notifier thread needs: a global reference it releases.
struct Notifier {
  jclass natives = nullptr;  // one AgentNatives class: all link through this library at once
};

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

bool SetActive(JNIEnv* jni, jclass agent_link) {
  // An initialized class: GetStaticFieldID runs no initializer.
  jfieldID active = jni->GetStaticFieldID(agent_link, kActiveField, "Z");
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

// True once the natives link: AgentNatives.isActive() returns instead of throwing
// UnsatisfiedLinkError.
bool NativesLinked(JNIEnv* jni, jclass natives, jmethodID is_active) {
  const jboolean active = jni->CallStaticBooleanMethod(natives, is_active);
  if (jni->ExceptionCheck()) {
    jni->ExceptionClear();
    return false;
  }
  return active == JNI_TRUE;
}

// Every initialized AgentLink class, as local references the caller deletes, and one
// AgentNatives class (local reference, or null).
struct LoadedShims {
  std::vector<jclass> links;
  jclass natives = nullptr;
  std::string error;
};

LoadedShims FindShims(jvmtiEnv* jvmti, JNIEnv* jni) {
  LoadedShims found;
  jint count = 0;
  jclass* classes = nullptr;
  if (jvmtiError err = jvmti->GetLoadedClasses(&count, &classes); err != JVMTI_ERROR_NONE) {
    found.error = "GetLoadedClasses failed with JVMTI error " + std::to_string(err);
    return found;
  }
  for (jint i = 0; i < count; ++i) {
    if (HasSignature(jvmti, classes[i], kAgentLinkSignature) && Initialized(jvmti, classes[i])) {
      found.links.push_back(classes[i]);
    } else if (found.natives == nullptr &&
               HasSignature(jvmti, classes[i], kAgentNativesSignature)) {
      found.natives = classes[i];
    } else {
      jni->DeleteLocalRef(classes[i]);
    }
  }
  jvmti->Deallocate(reinterpret_cast<unsigned char*>(classes));
  return found;
}

void Release(JNIEnv* jni, LoadedShims& found) {
  for (jclass link : found.links) jni->DeleteLocalRef(link);
  if (found.natives != nullptr) jni->DeleteLocalRef(found.natives);
  found.links.clear();
  found.natives = nullptr;
}

void JNICALL NotifyWhenLinked(jvmtiEnv* jvmti, JNIEnv* jni, void* arg) {
  auto* notifier = static_cast<Notifier*>(arg);
  jmethodID is_active = jni->GetStaticMethodID(notifier->natives, "isActive", "()Z");
  int waited = 0;
  if (is_active == nullptr) {
    jni->ExceptionClear();
    waited = kLinkWaitMillis;
  }
  for (; waited < kLinkWaitMillis && !NativesLinked(jni, notifier->natives, is_active); ++waited) {
    const timespec millisecond{0, 1'000'000};
    nanosleep(&millisecond, nullptr);
  }
  jni->DeleteGlobalRef(notifier->natives);
  delete notifier;
  if (waited == kLinkWaitMillis) {
    LogError("the shim's natives did not link within %d ms: running shims were not told",
             kLinkWaitMillis);
    return;
  }
  // Found again now: a shim first used while the attach was returning has probed and failed too.
  LoadedShims found = FindShims(jvmti, jni);
  int told = 0;
  for (jclass link : found.links) told += SetActive(jni, link) ? 1 : 0;
  Release(jni, found);
  LogDebug("%d running shims told, %d ms after the attach", told, waited);
}

std::string StartNotifier(jvmtiEnv* jvmti, JNIEnv* jni, Notifier* notifier) {
  jclass thread_class = jni->FindClass("java/lang/Thread");
  jmethodID constructor =
      thread_class ? jni->GetMethodID(thread_class, "<init>", "(Ljava/lang/String;)V") : nullptr;
  jstring name = constructor ? jni->NewStringUTF("vtctx-attach") : nullptr;
  jobject thread = name ? jni->NewObject(thread_class, constructor, name) : nullptr;
  if (thread == nullptr) {
    jni->ExceptionClear();
    return "cannot create the vtctx-attach thread";
  }
  if (jvmtiError err =
          jvmti->RunAgentThread(thread, NotifyWhenLinked, notifier, JVMTI_THREAD_NORM_PRIORITY);
      err != JVMTI_ERROR_NONE) {
    return "RunAgentThread failed with JVMTI error " + std::to_string(err);
  }
  return {};
}

}  // namespace

ShimLinkOutcome TellShimsAgentActive(jvmtiEnv* jvmti, JNIEnv* jni) {
  ShimLinkOutcome outcome;
  LoadedShims found = FindShims(jvmti, jni);
  outcome.shims = static_cast<int>(found.links.size());
  outcome.error = found.error;
  // A shim that has probed has loaded AgentNatives. None loaded: no shim has looked for the agent,
  // and each will find it at its first use. (One first used in the instant between this search
  // and the natives linking finds none and stays off: it is not told.)
  if (found.natives != nullptr) {
    auto* notifier = new Notifier{static_cast<jclass>(jni->NewGlobalRef(found.natives))};
    outcome.error = StartNotifier(jvmti, jni, notifier);
    if (!outcome.error.empty()) {
      jni->DeleteGlobalRef(notifier->natives);
      delete notifier;
    }
  }
  Release(jni, found);
  return outcome;
}

}  // namespace vtctx
