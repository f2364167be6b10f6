#include "shimNatives.h"

#include <atomic>
#include <cstring>
#include <mutex>
#include <vector>

#include "jniNatives.h"
#include "log.h"

namespace vtctx {
namespace {

constexpr char kAgentNativesSignature[] = "Lio/vtctx/internal/AgentNatives;";
constexpr char kAgentNativesName[] = "io.vtctx.internal.AgentNatives";

// Weak references to the classes that got the natives (a web application's loader can still be
// unloaded). Written under the mutex; a handful at most.
std::mutex g_mutex;
std::vector<jweak> g_bound;
std::atomic<bool> g_refusal_logged{false};

jobject LoaderOf(JNIEnv* jni, jclass klass) {
  jclass class_class = jni->FindClass("java/lang/Class");
  jmethodID get_loader =
      class_class ? jni->GetMethodID(class_class, "getClassLoader", "()Ljava/lang/ClassLoader;")
                  : nullptr;
  jobject loader = get_loader ? jni->CallObjectMethod(klass, get_loader) : nullptr;
  if (jni->ExceptionCheck()) jni->ExceptionClear();
  if (class_class) jni->DeleteLocalRef(class_class);
  return loader;
}

// RegisterNatives on `klass`; false (and the exception cleared) when its declarations differ.
bool Register(JNIEnv* jni, jclass klass, const char* where, std::string* error) {
  const std::span<const JNINativeMethod> methods = AgentNativeMethods();
  if (jni->RegisterNatives(klass, methods.data(), static_cast<jint>(methods.size())) != 0) {
    jni->ExceptionClear();
    // HotSpot registers in order up to the first mismatch: none stays bound, or the class would
    // look like the shim of an active agent with the rest of its natives missing.
    jni->UnregisterNatives(klass);
    *error = std::string("the shim's ") + kAgentNativesName + " (" + where +
             ") does not declare this agent's natives (another vtctx version?): its threads "
             "publish nothing; use the shim of the agent's version";
    if (!g_refusal_logged.exchange(true)) LogError("%s", error->c_str());
    return false;
  }
  std::lock_guard<std::mutex> lock(g_mutex);
  g_bound.push_back(jni->NewWeakGlobalRef(klass));
  return true;
}

bool IsAgentNatives(jvmtiEnv* jvmti, jclass klass) {
  char* signature = nullptr;
  if (jvmti->GetClassSignature(klass, &signature, nullptr) != JVMTI_ERROR_NONE) return false;
  const bool match = signature != nullptr && std::strcmp(signature, kAgentNativesSignature) == 0;
  jvmti->Deallocate(reinterpret_cast<unsigned char*>(signature));
  return match;
}

// The system class loader's AgentNatives (loaded, not initialized), or null if it has none.
jclass SystemShim(JNIEnv* jni) {
  jclass loader_class = jni->FindClass("java/lang/ClassLoader");
  jclass class_class = jni->FindClass("java/lang/Class");
  jmethodID system = loader_class ? jni->GetStaticMethodID(loader_class, "getSystemClassLoader",
                                                           "()Ljava/lang/ClassLoader;")
                                  : nullptr;
  jmethodID for_name =
      class_class
          ? jni->GetStaticMethodID(class_class, "forName",
                                   "(Ljava/lang/String;ZLjava/lang/ClassLoader;)Ljava/lang/Class;")
          : nullptr;
  jobject loader = system ? jni->CallStaticObjectMethod(loader_class, system) : nullptr;
  jstring name = jni->NewStringUTF(kAgentNativesName);
  jclass klass = nullptr;
  if (for_name != nullptr && loader != nullptr && name != nullptr) {
    klass = static_cast<jclass>(
        jni->CallStaticObjectMethod(class_class, for_name, name, JNI_FALSE, loader));
  }
  if (jni->ExceptionCheck()) {  // ClassNotFoundException: no shim on the class path
    jni->ExceptionClear();
    klass = nullptr;
  }
  for (jobject ref : {static_cast<jobject>(loader_class), static_cast<jobject>(class_class), loader,
                      static_cast<jobject>(name)}) {
    if (ref != nullptr) jni->DeleteLocalRef(ref);
  }
  return klass;
}

}  // namespace

ShimBinding BindShimNatives(jvmtiEnv* jvmti, JNIEnv* jni, ShimLoaders loaders) {
  ShimBinding outcome;
  jclass system = SystemShim(jni);
  if (system != nullptr) {
    if (Register(jni, system, "system class loader", &outcome.error)) ++outcome.bound;
  }
  if (loaders == ShimLoaders::kAny) {
    jint count = 0;
    jclass* classes = nullptr;
    if (jvmti->GetLoadedClasses(&count, &classes) == JVMTI_ERROR_NONE) {
      for (jint i = 0; i < count; ++i) {
        if (IsAgentNatives(jvmti, classes[i]) &&
            (system == nullptr || !jni->IsSameObject(classes[i], system)) &&
            Register(jni, classes[i], "another class loader", &outcome.error)) {
          ++outcome.bound;
        }
        jni->DeleteLocalRef(classes[i]);
      }
      jvmti->Deallocate(reinterpret_cast<unsigned char*>(classes));
    }
  }
  if (system != nullptr) jni->DeleteLocalRef(system);
  return outcome;
}

void JNICALL OnClassPrepareBindShim(jvmtiEnv* jvmti, JNIEnv* jni, jthread, jclass klass) {
  if (!IsAgentNatives(jvmti, klass)) return;
  std::string error;
  Register(jni, klass, "prepared by a class loader", &error);
}

bool ShimNativesBoundFor(JNIEnv* jni, jobject loader) {
  std::lock_guard<std::mutex> lock(g_mutex);
  for (jweak weak : g_bound) {
    jobject klass = jni->NewLocalRef(weak);
    if (klass == nullptr) continue;  // unloaded
    jobject bound_loader = LoaderOf(jni, static_cast<jclass>(klass));
    const bool same = jni->IsSameObject(bound_loader, loader);
    if (bound_loader != nullptr) jni->DeleteLocalRef(bound_loader);
    jni->DeleteLocalRef(klass);
    if (same) return true;
  }
  return false;
}

}  // namespace vtctx
