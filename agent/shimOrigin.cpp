#include "shimOrigin.h"

#include "classLookup.h"
#include "vtctx/agentStatus.h"

namespace vtctx {
namespace {

// The OpenTelemetry Java agent's bootstrap class, and its public accessor of the extensions
// class loader (io.opentelemetry.javaagent.bootstrap.AgentInitializer, 2.x).
constexpr char kOtelAgentInitializer[] = "io.opentelemetry.javaagent.bootstrap.AgentInitializer";
constexpr char kExtensionsLoaderMethod[] = "getExtensionsClassLoader";

}  // namespace

jobject OtelExtensionsLoader(JNIEnv* jni) {
  // The boot loader's class only (loader null): an application class of that name is not it.
  jclass initializer = ClassForName(jni, kOtelAgentInitializer, false, nullptr);
  if (initializer == nullptr) return nullptr;
  jmethodID accessor =
      jni->GetStaticMethodID(initializer, kExtensionsLoaderMethod, "()Ljava/lang/ClassLoader;");
  jobject loader = accessor ? jni->CallStaticObjectMethod(initializer, accessor) : nullptr;
  if (jni->ExceptionCheck()) {  // another version without the accessor, or it threw
    jni->ExceptionClear();
    loader = nullptr;
  }
  DeleteLocalRefs(jni, {initializer});
  return loader;
}

ShimOrigin OriginOf(JNIEnv* jni, jclass natives) {
  jobject defining = DefiningLoader(jni, natives);
  jobject system = SystemClassLoader(jni);
  ShimOrigin origin = ShimOrigin::kOther;
  if (defining != nullptr && jni->IsSameObject(defining, system)) {
    origin = ShimOrigin::kSystem;
  } else if (jobject extensions = OtelExtensionsLoader(jni)) {
    // Resolving the name may load the extension's copy (not initialise it): harmless.
    jclass resolved = ClassForName(jni, kAgentNativesName, false, extensions);
    if (resolved != nullptr && jni->IsSameObject(resolved, natives)) {
      origin = ShimOrigin::kOtelExtension;
    }
    DeleteLocalRefs(jni, {extensions, resolved});
  }
  DeleteLocalRefs(jni, {defining, system});
  return origin;
}

bool Serves(ShimLoaders loaders, ShimOrigin origin) {
  switch (loaders) {
    case ShimLoaders::kSystem:
      return origin == ShimOrigin::kSystem;
    case ShimLoaders::kOperator:
      return origin != ShimOrigin::kOther;
    case ShimLoaders::kAny:
      return true;
  }
  return false;
}

uint32_t OriginBit(ShimOrigin origin) {
  switch (origin) {
    case ShimOrigin::kSystem:
      return VTCTX_SHIM_ORIGIN_SYSTEM;
    case ShimOrigin::kOtelExtension:
      return VTCTX_SHIM_ORIGIN_OTEL_EXTENSION;
    case ShimOrigin::kOther:
      return VTCTX_SHIM_ORIGIN_OTHER;
  }
  return 0;
}

const char* OriginName(ShimOrigin origin) {
  switch (origin) {
    case ShimOrigin::kSystem:
      return "the class path or module path";
    case ShimOrigin::kOtelExtension:
      return "the OpenTelemetry Java agent's extensions";
    case ShimOrigin::kOther:
      return "another class loader";
  }
  return "?";
}

std::vector<jobject> LoadersWithShims(jvmtiEnv* jvmti, JNIEnv* jni, ShimLoaders loaders) {
  std::vector<jobject> out;
  auto add = [&](jobject loader) {
    if (loader == nullptr) return;
    for (jobject known : out) {
      if (jni->IsSameObject(known, loader)) {
        jni->DeleteLocalRef(loader);
        return;
      }
    }
    out.push_back(loader);
  };
  add(SystemClassLoader(jni));
  if (loaders != ShimLoaders::kSystem) add(OtelExtensionsLoader(jni));
  if (jvmti == nullptr) return out;
  jint count = 0;
  jclass* classes = nullptr;
  if (jvmti->GetLoadedClasses(&count, &classes) != JVMTI_ERROR_NONE) return out;
  for (jint i = 0; i < count; ++i) {
    if (HasClassSignature(jvmti, classes[i], kAgentLinkSignature)) {
      add(DefiningLoader(jni, classes[i]));
    }
    jni->DeleteLocalRef(classes[i]);
  }
  jvmti->Deallocate(reinterpret_cast<unsigned char*>(classes));
  return out;
}

}  // namespace vtctx
