#include "systemProperty.h"

#include "log.h"

namespace vtctx {

PropertyReader JvmtiProperties(jvmtiEnv* jvmti) {
  return [jvmti](const char* name) -> std::optional<std::string> {
    char* value = nullptr;
    const jvmtiError err = jvmti->GetSystemProperty(name, &value);
    if (err == JVMTI_ERROR_NOT_AVAILABLE) return std::nullopt;  // not set
    if (err != JVMTI_ERROR_NONE || value == nullptr) {
      LogDebug("GetSystemProperty(%s) failed with JVMTI error %d; treated as unset", name, err);
      return std::nullopt;
    }
    std::string s = value;
    jvmti->Deallocate(reinterpret_cast<unsigned char*>(value));
    return s;
  };
}

PropertyReader JniProperties(JNIEnv* jni) {
  return [jni](const char* name) -> std::optional<std::string> {
    std::optional<std::string> out;
    jclass system = jni->FindClass("java/lang/System");
    jmethodID get = system ? jni->GetStaticMethodID(system, "getProperty",
                                                    "(Ljava/lang/String;)Ljava/lang/String;")
                           : nullptr;
    jstring key = get ? jni->NewStringUTF(name) : nullptr;
    auto value =
        key ? static_cast<jstring>(jni->CallStaticObjectMethod(system, get, key)) : nullptr;
    if (jni->ExceptionCheck()) {  // a SecurityException or an OutOfMemoryError: unreadable
      jni->ExceptionClear();
      value = nullptr;
    }
    if (value != nullptr) {
      // Modified UTF-8; the resource rules (resourceAttributes.h) validate what they use.
      if (const char* chars = jni->GetStringUTFChars(value, nullptr)) {
        out = chars;
        jni->ReleaseStringUTFChars(value, chars);
      }
      jni->DeleteLocalRef(value);
    }
    if (key) jni->DeleteLocalRef(key);
    if (system) jni->DeleteLocalRef(system);
    return out;
  };
}

PropertyReader NoProperties() {
  return [](const char*) -> std::optional<std::string> { return std::nullopt; };
}

std::string JavaVersion(const PropertyReader& properties) {
  for (const char* name : {"java.version", "java.vm.version"}) {
    if (std::optional<std::string> value = properties(name)) return *value;
  }
  return "unknown";
}

}  // namespace vtctx
