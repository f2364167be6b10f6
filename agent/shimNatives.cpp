#include "shimNatives.h"

#include <atomic>
#include <mutex>
#include <string>
#include <vector>

#include "classLookup.h"
#include "jniNatives.h"
#include "log.h"
#include "shimOrigin.h"
#include "statusBlock.h"

namespace vtctx {
namespace {

// Weak references to the classes that got the natives (a web application's loader can still be
// unloaded). Written under the mutex; a handful at most.
std::mutex g_mutex;
std::vector<jweak> g_bound;
std::atomic<bool> g_mismatch_logged{false};
std::atomic<bool> g_refusal_logged{false};

bool AlreadyBound(JNIEnv* jni, jclass klass) {
  std::lock_guard<std::mutex> lock(g_mutex);
  for (jweak weak : g_bound) {
    if (jni->IsSameObject(weak, klass)) return true;
  }
  return false;
}

// RegisterNatives on `klass`; false (and the exception cleared) when its declarations differ.
bool Register(JNIEnv* jni, jclass klass, ShimOrigin origin, std::string* error) {
  const std::span<const JNINativeMethod> methods = AgentNativeMethods();
  if (jni->RegisterNatives(klass, methods.data(), static_cast<jint>(methods.size())) != 0) {
    jni->ExceptionClear();
    // HotSpot registers in order up to the first mismatch: none stays bound, or the class would
    // look like the shim of an active agent with the rest of its natives missing.
    jni->UnregisterNatives(klass);
    *error = std::string("the shim's ") + kAgentNativesName + " (" + OriginName(origin) +
             ") does not declare this agent's natives (another vtctx version?): its threads "
             "publish nothing; use the shim of the agent's version";
    if (!g_mismatch_logged.exchange(true)) LogError("%s", error->c_str());
    return false;
  }
  {
    // An attach and the shim's own probe may bind the same class at once: counted once.
    std::lock_guard<std::mutex> lock(g_mutex);
    for (jweak weak : g_bound) {
      if (jni->IsSameObject(weak, klass)) return true;
    }
    g_bound.push_back(jni->NewWeakGlobalRef(klass));
  }
  CountShimServed(OriginBit(origin));
  LogDebug("serving the shim of %s", OriginName(origin));
  return true;
}

// Counted, and the first one logged: the user sees why that shim publishes nothing.
void Refuse(ShimLoaders loaders) {
  CountShimRefused();
  if (g_refusal_logged.exchange(true)) return;
  LogError(
      "refused the shim of a class loader that is neither the system class loader (class path, "
      "module path) nor the OpenTelemetry Java agent's extensions%s: its threads publish nothing; "
      "install the shim there, or load the agent with shim_loaders=any to serve every class "
      "loader's copy",
      loaders == ShimLoaders::kSystem ? " (shim_loaders=system: the class path's only)" : "");
}

// Binds `natives` if `loaders` serves where it comes from; counts a refusal otherwise. True if it
// has the natives now.
bool Judge(JNIEnv* jni, jclass natives, ShimLoaders loaders, std::string* error) {
  if (AlreadyBound(jni, natives)) return true;
  const ShimOrigin origin = OriginOf(jni, natives);
  if (!Serves(loaders, origin)) {
    Refuse(loaders);
    return false;
  }
  return Register(jni, natives, origin, error);
}

}  // namespace

ShimBinding BindShimNatives(jvmtiEnv* jvmti, JNIEnv* jni, ShimLoaders loaders) {
  ShimBinding outcome;
  for (jobject loader : LoadersWithShims(jvmti, jni, loaders)) {
    if (jclass natives = ClassForName(jni, kAgentNativesName, false, loader)) {
      if (!AlreadyBound(jni, natives) && Judge(jni, natives, loaders, &outcome.error)) {
        ++outcome.bound;
      }
      DeleteLocalRefs(jni, {natives});
    }
    DeleteLocalRefs(jni, {loader});
  }
  return outcome;
}

void BindShimNativesFor(JNIEnv* jni, jobject bootstrap, ShimLoaders loaders) {
  jclass class_class = jni->FindClass("java/lang/Class");
  // An instance method of that name gets its receiver here, not a class.
  const bool is_class = class_class != nullptr && jni->IsInstanceOf(bootstrap, class_class);
  DeleteLocalRefs(jni, {class_class});
  if (!is_class) return;
  // The class the caller's loader resolves the name to (its own, or a parent's) is judged.
  jobject loader = DefiningLoader(jni, static_cast<jclass>(bootstrap));
  if (jclass natives = ClassForName(jni, kAgentNativesName, false, loader)) {
    std::string error;
    Judge(jni, natives, loaders, &error);
    DeleteLocalRefs(jni, {natives});
  }
  DeleteLocalRefs(jni, {loader});
  if (jni->ExceptionCheck()) jni->ExceptionClear();
}

bool ShimNativesBound(JNIEnv* jni, jclass natives) { return AlreadyBound(jni, natives); }

}  // namespace vtctx
