#include "classLookup.h"

#include <cstring>
#include <initializer_list>

namespace vtctx {

jobject SystemClassLoader(JNIEnv* jni) {
  jclass loader_class = jni->FindClass("java/lang/ClassLoader");
  jmethodID system = loader_class ? jni->GetStaticMethodID(loader_class, "getSystemClassLoader",
                                                           "()Ljava/lang/ClassLoader;")
                                  : nullptr;
  jobject loader = system ? jni->CallStaticObjectMethod(loader_class, system) : nullptr;
  if (jni->ExceptionCheck()) {
    jni->ExceptionClear();
    loader = nullptr;
  }
  if (loader_class != nullptr) jni->DeleteLocalRef(loader_class);
  return loader;
}

void DeleteLocalRefs(JNIEnv* jni, std::initializer_list<jobject> refs) {
  for (jobject ref : refs) {
    if (ref != nullptr) jni->DeleteLocalRef(ref);
  }
}

jobject DefiningLoader(JNIEnv* jni, jclass klass) {
  jclass class_class = jni->FindClass("java/lang/Class");
  jmethodID get_loader =
      class_class ? jni->GetMethodID(class_class, "getClassLoader", "()Ljava/lang/ClassLoader;")
                  : nullptr;
  jobject loader = get_loader ? jni->CallObjectMethod(klass, get_loader) : nullptr;
  if (jni->ExceptionCheck()) {
    jni->ExceptionClear();
    loader = nullptr;
  }
  if (class_class != nullptr) jni->DeleteLocalRef(class_class);
  return loader;
}

jclass ClassForName(JNIEnv* jni, const char* name, bool initialize, jobject loader) {
  jclass class_class = jni->FindClass("java/lang/Class");
  jmethodID for_name =
      class_class
          ? jni->GetStaticMethodID(class_class, "forName",
                                   "(Ljava/lang/String;ZLjava/lang/ClassLoader;)Ljava/lang/Class;")
          : nullptr;
  jstring java_name = for_name != nullptr ? jni->NewStringUTF(name) : nullptr;
  jclass klass = nullptr;
  if (java_name != nullptr) {
    klass = static_cast<jclass>(jni->CallStaticObjectMethod(
        class_class, for_name, java_name, initialize ? JNI_TRUE : JNI_FALSE, loader));
  }
  if (jni->ExceptionCheck()) {  // ClassNotFoundException: not there
    jni->ExceptionClear();
    klass = nullptr;
  }
  DeleteLocalRefs(jni, {class_class, java_name});
  return klass;
}

bool HasClassSignature(jvmtiEnv* jvmti, jclass klass, const char* signature) {
  char* actual = nullptr;
  if (jvmti->GetClassSignature(klass, &actual, nullptr) != JVMTI_ERROR_NONE) return false;
  const bool match = actual != nullptr && std::strcmp(actual, signature) == 0;
  jvmti->Deallocate(reinterpret_cast<unsigned char*>(actual));
  return match;
}

}  // namespace vtctx
