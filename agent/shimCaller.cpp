#include "shimCaller.h"

#include <atomic>
#include <mutex>
#include <string>

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

// The calling frame's class through JVMTI: depth 0 is the native itself, depth 1 the frame that
// called it (a JDK frame for a call through reflection or a method handle).
jclass JvmtiCaller(jvmtiEnv* jvmti) {
  jmethodID method = nullptr;
  jlocation location = 0;
  jclass caller = nullptr;
  if (jvmti->GetFrameLocation(nullptr, 1, &method, &location) != JVMTI_ERROR_NONE ||
      jvmti->GetMethodDeclaringClass(method, &caller) != JVMTI_ERROR_NONE) {
    return nullptr;
  }
  return caller;
}

// Without JVMTI (channel=identity): StackWalker.getCallerClass() called from the native returns
// the class whose method called the native, skipping reflection and method-handle frames (the
// caller that used them is the one judged). Public API; about a microsecond, once per thread.
jclass StackWalkerCaller(JNIEnv* jni) {
  static jobject walker = nullptr;  // global reference, never deleted
  static jmethodID get_caller = nullptr;
  static std::once_flag once;
  std::call_once(once, [jni] {
    jclass walker_class = jni->FindClass("java/lang/StackWalker");
    jclass option_class = jni->FindClass("java/lang/StackWalker$Option");
    jfieldID retain = option_class ? jni->GetStaticFieldID(option_class, "RETAIN_CLASS_REFERENCE",
                                                           "Ljava/lang/StackWalker$Option;")
                                   : nullptr;
    jobject option = retain ? jni->GetStaticObjectField(option_class, retain) : nullptr;
    jmethodID instance =
        walker_class
            ? jni->GetStaticMethodID(walker_class, "getInstance",
                                     "(Ljava/lang/StackWalker$Option;)Ljava/lang/StackWalker;")
            : nullptr;
    jobject local =
        instance && option ? jni->CallStaticObjectMethod(walker_class, instance, option) : nullptr;
    get_caller = walker_class
                     ? jni->GetMethodID(walker_class, "getCallerClass", "()Ljava/lang/Class;")
                     : nullptr;
    if (local != nullptr && get_caller != nullptr) walker = jni->NewGlobalRef(local);
    if (jni->ExceptionCheck()) jni->ExceptionClear();
    for (jobject ref :
         {static_cast<jobject>(walker_class), static_cast<jobject>(option_class), option, local}) {
      if (ref != nullptr) jni->DeleteLocalRef(ref);
    }
  });
  if (walker == nullptr) return nullptr;
  auto caller = static_cast<jclass>(jni->CallObjectMethod(walker, get_caller));
  if (jni->ExceptionCheck()) {  // IllegalCallerException: no Java caller
    jni->ExceptionClear();
    return nullptr;
  }
  return caller;
}

// "Lio/vtctx/internal/Name;" for a class, through JVMTI or, without it, Class.getName().
std::string SignatureOf(jvmtiEnv* jvmti, JNIEnv* jni, jclass klass) {
  std::string out;
  if (jvmti != nullptr) {
    char* signature = nullptr;
    if (jvmti->GetClassSignature(klass, &signature, nullptr) == JVMTI_ERROR_NONE && signature) {
      out = signature;
      jvmti->Deallocate(reinterpret_cast<unsigned char*>(signature));
    }
    return out;
  }
  jclass class_class = jni->GetObjectClass(klass);
  jmethodID get_name = jni->GetMethodID(class_class, "getName", "()Ljava/lang/String;");
  auto name = get_name ? static_cast<jstring>(jni->CallObjectMethod(klass, get_name)) : nullptr;
  if (jni->ExceptionCheck()) jni->ExceptionClear();
  if (name != nullptr) {
    if (const char* chars = jni->GetStringUTFChars(name, nullptr)) {
      out = std::string("L") + chars + ";";
      for (char& c : out) c = c == '.' ? '/' : c;
      jni->ReleaseStringUTFChars(name, chars);
    }
    jni->DeleteLocalRef(name);
  }
  jni->DeleteLocalRef(class_class);
  return out;
}

// Logs the first refusal of the process, naming the calling class.
void LogRefusal(jvmtiEnv* jvmti, JNIEnv* jni, jclass caller, const char* native_name) {
  if (g_refusal_logged.exchange(true, std::memory_order_relaxed)) return;
  const std::string signature = caller != nullptr ? SignatureOf(jvmti, jni, caller) : "";
  LogError(
      "%s: refused a call from %s: only the shim's own classes (io.vtctx.internal, in the module "
      "of the AgentNatives class called) get a record view",
      native_name, !signature.empty() ? signature.c_str() : "a caller without a Java frame");
}

}  // namespace

bool CalledByShim(jvmtiEnv* jvmti, JNIEnv* jni, jclass natives, const char* native_name) {
  jclass caller = jvmti != nullptr ? JvmtiCaller(jvmti) : StackWalkerCaller(jni);
  bool allowed = false;
  if (caller != nullptr) {
    jobject caller_module = jni->GetModule(caller);
    jobject natives_module = jni->GetModule(natives);
    allowed = caller_module != nullptr && jni->IsSameObject(caller_module, natives_module) &&
              IsShimInternalClass(SignatureOf(jvmti, jni, caller));
    jni->DeleteLocalRef(caller_module);
    jni->DeleteLocalRef(natives_module);
  }
  if (jni->ExceptionCheck()) {  // none of the calls above throws; never let one reach the caller
    jni->ExceptionClear();
    allowed = false;
  }
  if (!allowed) LogRefusal(jvmti, jni, caller, native_name);
  if (caller != nullptr) jni->DeleteLocalRef(caller);
  return allowed;
}

}  // namespace vtctx
