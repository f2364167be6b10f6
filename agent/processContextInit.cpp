#include "processContextInit.h"

#include <atomic>
#include <cstdlib>
#include <new>
#include <optional>

#include "log.h"
#include "resourceAttributes.h"
#include "vtctx/processContextHeader.h"
#include "vtctx/version.h"

namespace vtctx {
namespace {

std::atomic<ProcessContextPublisher*> g_published{nullptr};

// A JVM system property, or nullopt if it is not set (or cannot be read).
std::optional<std::string> SystemProperty(jvmtiEnv* jvmti, const char* name) {
  char* value = nullptr;
  const jvmtiError err = jvmti->GetSystemProperty(name, &value);
  if (err == JVMTI_ERROR_NOT_AVAILABLE) return std::nullopt;  // not set
  if (err != JVMTI_ERROR_NONE || value == nullptr) {
    LogDebug("GetSystemProperty(%s) failed with JVMTI error %d; treated as unset", name, err);
    return std::nullopt;
  }
  std::string s = value;
  if (jvmtiError d = jvmti->Deallocate(reinterpret_cast<unsigned char*>(value));
      d != JVMTI_ERROR_NONE) {
    LogDebug("Deallocate after GetSystemProperty(%s) failed with JVMTI error %d", name, d);
  }
  return s;
}

std::optional<std::string> Environment(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

// Every payload also names the vtctx version that wrote it, how it was loaded and with which
// options (docs/process-context.md): what `vtctx-reader attach` reports of an active agent.
ProcessContextPublisher::Config PublisherConfig(const char* load, const std::string& options) {
  ProcessContextPublisher::Config config;
  config.extra_attributes.push_back({VTCTX_PCTX_KEY_VTCTX_VERSION, VTCTX_VERSION});
  config.extra_attributes.push_back({VTCTX_PCTX_KEY_VTCTX_LOAD, load});
  config.extra_attributes.push_back({VTCTX_PCTX_KEY_VTCTX_OPTIONS, options});
  return config;
}

std::string Summary(const ProcessContextPublisher& publisher) {
  std::string summary = "process context ";
  summary += publisher.mapping_kind() == MappingKind::kMemfd ? "memfd" : "anon";
  summary += ", " + std::to_string(publisher.key_count()) + " attribute keys";
  return summary;
}

}  // namespace

ProcessContextPublisher* PublishedProcessContext() {
  return g_published.load(std::memory_order_acquire);
}

ProcessContextOutcome PublishProcessContextOnce(jvmtiEnv* jvmti, const Options& options,
                                                const char* load, const std::string& options_text) {
  if (ProcessContextPublisher* published = PublishedProcessContext()) {
    return {{}, Summary(*published)};
  }
  ResourceInputs inputs;
  inputs.option_service_name = options.service_name;
  inputs.property_service_name = SystemProperty(jvmti, "otel.service.name");
  inputs.env_service_name = Environment("OTEL_SERVICE_NAME");
  inputs.property_resource_attributes = SystemProperty(jvmti, "otel.resource.attributes");
  inputs.env_resource_attributes = Environment("OTEL_RESOURCE_ATTRIBUTES");
  inputs.random_instance_id = NewUuidV4();
  if (inputs.random_instance_id.empty()) {
    return {"getrandom(2) failed: no random service.instance.id", {}};
  }
  ResourceAttributes resource = ResolveResourceAttributes(inputs);
  if (!resource.warning.empty()) LogError("%s", resource.warning.c_str());

  // Created once and never freed: readers may read its page and payloads until the process ends.
  static ProcessContextPublisher* publisher =
      new ProcessContextPublisher(PublisherConfig(load, options_text));
  if (std::string error = publisher->Publish(resource.attributes, options.attribute_keys);
      !error.empty()) {
    return {std::move(error), {}};
  }
  g_published.store(publisher, std::memory_order_release);
  LogDebug("process context published: service.name='%s' (from %s), service.instance.id=%s",
           resource.attributes[0].value.c_str(), resource.service_name_source,
           resource.attributes[1].value.c_str());
  return {{}, Summary(*publisher)};
}

}  // namespace vtctx
