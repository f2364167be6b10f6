#include "shimNatives.h"

#include <atomic>
#include <mutex>
#include <vector>

#include "classLookup.h"
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

// The AgentNatives class `loader` resolves (loaded, not initialized), or null if it finds none.
jclass ShimOf(JNIEnv* jni, jobject loader) {
  return ClassForName(jni, kAgentNativesName, false, loader);
}

// The system class loader's AgentNatives (loaded, not initialized), or null if it has none.
jclass SystemShim(JNIEnv* jni) {
  jobject loader = SystemClassLoader(jni);
  jclass klass = loader != nullptr ? ShimOf(jni, loader) : nullptr;
  if (loader != nullptr) jni->DeleteLocalRef(loader);
  return klass;
}

bool AlreadyBound(JNIEnv* jni, jclass klass) {
  std::lock_guard<std::mutex> lock(g_mutex);
  for (jweak weak : g_bound) {
    if (jni->IsSameObject(weak, klass)) return true;
  }
  return false;
}

}  // namespace

ShimBinding BindShimNatives(jvmtiEnv* jvmti, JNIEnv* jni, ShimLoaders loaders) {
  ShimBinding outcome;
  jclass system = SystemShim(jni);
  if (system != nullptr && !AlreadyBound(jni, system)) {
    if (Register(jni, system, "system class loader", &outcome.error)) ++outcome.bound;
  }
  if (loaders == ShimLoaders::kAny && jvmti != nullptr) {
    jint count = 0;
    jclass* classes = nullptr;
    if (jvmti->GetLoadedClasses(&count, &classes) == JVMTI_ERROR_NONE) {
      for (jint i = 0; i < count; ++i) {
        if (HasClassSignature(jvmti, classes[i], kAgentNativesSignature) &&
            !AlreadyBound(jni, classes[i]) &&
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

void BindShimNativesFor(JNIEnv* jni, jobject bootstrap, ShimLoaders loaders) {
  jclass class_class = jni->FindClass("java/lang/Class");
  // An instance method of that name gets its receiver here, not a class.
  const bool is_class = class_class != nullptr && jni->IsInstanceOf(bootstrap, class_class);
  if (class_class != nullptr) jni->DeleteLocalRef(class_class);
  if (!is_class) return;
  jobject loader = LoaderOf(jni, static_cast<jclass>(bootstrap));
  jclass natives = ShimOf(jni, loader);
  if (natives != nullptr) {
    // The class the caller's loader resolves the name to (its own, or a parent's): served if
    // the system class loader defined it, or with shim_loaders=any.
    jobject defining = LoaderOf(jni, natives);
    jobject system = SystemClassLoader(jni);
    const bool served =
        loaders == ShimLoaders::kAny || (system != nullptr && jni->IsSameObject(defining, system));
    std::string error;
    if (served && !AlreadyBound(jni, natives)) Register(jni, natives, "first use", &error);
    for (jobject ref : {defining, system, static_cast<jobject>(natives)}) {
      if (ref != nullptr) jni->DeleteLocalRef(ref);
    }
  }
  if (loader != nullptr) jni->DeleteLocalRef(loader);
  if (jni->ExceptionCheck()) jni->ExceptionClear();
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
