#include "javaThreadIdentity.h"

#include <atomic>

namespace vtctx {
namespace {

struct ThreadApi {
  jclass thread = nullptr;  // global reference, never deleted
  jmethodID current = nullptr;
  jmethodID thread_id = nullptr;
};

// Looked up once; a failed lookup is tried again by the next caller. A JVM older than JNI 21 has
// no virtual threads and no JNIEnv::IsVirtualThread (calling past the end of its function table
// would jump through whatever follows it): no identity there, ever.
const ThreadApi* Api(JNIEnv* jni) {
  static std::atomic<const ThreadApi*> api{nullptr};
  if (const ThreadApi* known = api.load(std::memory_order_acquire)) return known;
  if (!HasJni21(jni)) return nullptr;
  jclass local = jni->FindClass("java/lang/Thread");
  auto* found = new ThreadApi();
  if (local != nullptr) {
    found->thread = static_cast<jclass>(jni->NewGlobalRef(local));
    found->current = jni->GetStaticMethodID(local, "currentThread", "()Ljava/lang/Thread;");
    found->thread_id = jni->GetMethodID(local, "threadId", "()J");
    jni->DeleteLocalRef(local);
  }
  if (jni->ExceptionCheck()) jni->ExceptionClear();
  if (found->thread == nullptr || found->current == nullptr || found->thread_id == nullptr) {
    if (found->thread != nullptr) jni->DeleteGlobalRef(found->thread);
    delete found;
    return nullptr;
  }
  const ThreadApi* expected = nullptr;
  if (!api.compare_exchange_strong(expected, found, std::memory_order_acq_rel)) {
    jni->DeleteGlobalRef(found->thread);  // another thread won: use its lookup
    delete found;
    return expected;
  }
  return found;
}

}  // namespace

bool HasJni21(JNIEnv* jni) { return jni->GetVersion() >= JNI_VERSION_21; }

std::optional<JavaThreadIdentity> CurrentJavaThreadIdentity(JNIEnv* jni) {
  const ThreadApi* api = Api(jni);
  if (api == nullptr) return std::nullopt;
  jobject thread = jni->CallStaticObjectMethod(api->thread, api->current);
  std::optional<JavaThreadIdentity> out;
  if (thread != nullptr && !jni->ExceptionCheck()) {
    const jlong id = jni->CallLongMethod(thread, api->thread_id);
    if (!jni->ExceptionCheck() && id > 0) {
      out = JavaThreadIdentity{static_cast<uint64_t>(id), jni->IsVirtualThread(thread) == JNI_TRUE};
    }
  }
  if (jni->ExceptionCheck()) jni->ExceptionClear();
  if (thread != nullptr) jni->DeleteLocalRef(thread);
  return out;
}

}  // namespace vtctx
