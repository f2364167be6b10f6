#include "shimCaller.h"

#include <atomic>

#include "log.h"

namespace vtctx {

bool IsShimInternalClass(std::string_view signature) {
  constexpr std::string_view kPrefix = "Lio/vtctx/internal/";
  if (!signature.starts_with(kPrefix) || !signature.ends_with(';')) return false;
  const std::string_view name =
      signature.substr(kPrefix.size(), signature.size() - kPrefix.size() - 1);
  return !name.empty() && name.find('/') == std::string_view::npos;
}

namespace {

std::atomic<bool> g_refusal_logged{false};

// Logs the first refusal of the process, naming the calling class.
void LogRefusal(jvmtiEnv* jvmti, jclass caller, const char* native_name) {
  if (g_refusal_logged.exchange(true, std::memory_order_relaxed)) return;
  char* signature = nullptr;
  if (caller == nullptr ||
      jvmti->GetClassSignature(caller, &signature, nullptr) != JVMTI_ERROR_NONE) {
    signature = nullptr;
  }
  LogError(
      "%s: refused a call from %s: only the shim's own classes (io.vtctx.internal, in the module "
      "of the AgentNatives class called) get a record view",
      native_name, signature != nullptr ? signature : "a caller without a Java frame");
  if (signature != nullptr) jvmti->Deallocate(reinterpret_cast<unsigned char*>(signature));
}

}  // namespace

bool CalledByShim(jvmtiEnv* jvmti, JNIEnv* jni, jclass natives, const char* native_name) {
  jmethodID method = nullptr;
  jlocation location = 0;
  jclass caller = nullptr;
  bool allowed = false;
  // Depth 0 is the native itself; depth 1 the frame that called it (a JDK frame for a call
  // through reflection or a method handle).
  if (jvmti->GetFrameLocation(nullptr, 1, &method, &location) == JVMTI_ERROR_NONE &&
      jvmti->GetMethodDeclaringClass(method, &caller) == JVMTI_ERROR_NONE) {
    jobject caller_module = jni->GetModule(caller);
    jobject natives_module = jni->GetModule(natives);
    char* signature = nullptr;
    allowed = caller_module != nullptr && jni->IsSameObject(caller_module, natives_module) &&
              jvmti->GetClassSignature(caller, &signature, nullptr) == JVMTI_ERROR_NONE &&
              IsShimInternalClass(signature);
    if (signature != nullptr) jvmti->Deallocate(reinterpret_cast<unsigned char*>(signature));
    jni->DeleteLocalRef(caller_module);
    jni->DeleteLocalRef(natives_module);
  }
  if (jni->ExceptionCheck()) {  // none of the calls above throws; never let one reach the caller
    jni->ExceptionClear();
    allowed = false;
  }
  if (!allowed) LogRefusal(jvmti, caller, native_name);
  if (caller != nullptr) jni->DeleteLocalRef(caller);
  return allowed;
}

}  // namespace vtctx
