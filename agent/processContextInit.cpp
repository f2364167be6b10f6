#include "processContextInit.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <optional>

#include "log.h"
#include "resourceAttributes.h"
#include "statusBlock.h"
#include "vtctx/processContextHeader.h"
#include "vtctx/threadIndex.h"
#include "vtctx/version.h"

namespace vtctx {
namespace {

std::atomic<ProcessContextPublisher*> g_published{nullptr};

std::optional<std::string> Environment(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

// "0x..." (lowercase hex), as readers parse addresses in the process context.
std::string HexAddress(const void* address) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%llx",
                static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(address)));
  return text;
}

// Every payload also names the vtctx version that wrote it, how it was loaded and with which
// options (docs/process-context.md): what `vtctx-reader attach` reports of an active agent.
// and how readers find a thread's context (the channel and the thread index) and the agent's
// status block (statusBlock.h).
ProcessContextPublisher::Config PublisherConfig(const char* load, const std::string& options,
                                                Channel channel, const void* thread_index) {
  ProcessContextPublisher::Config config;
  config.extra_attributes.push_back({VTCTX_PCTX_KEY_VTCTX_VERSION, VTCTX_VERSION});
  config.extra_attributes.push_back({VTCTX_PCTX_KEY_VTCTX_LOAD, load});
  config.extra_attributes.push_back({VTCTX_PCTX_KEY_VTCTX_OPTIONS, options});
  config.extra_attributes.push_back({VTCTX_PCTX_KEY_VTCTX_CHANNEL, ChannelName(channel)});
  if (thread_index != nullptr) {
    config.extra_attributes.push_back(
        {VTCTX_PCTX_KEY_VTCTX_IDENTITY_INDEX, HexAddress(thread_index)});
    config.extra_attributes.push_back(
        {VTCTX_PCTX_KEY_VTCTX_IDENTITY_LAYOUT, std::to_string(VTCTX_INDEX_LAYOUT)});
  }
  config.extra_attributes.push_back({VTCTX_PCTX_KEY_VTCTX_STATUS, HexAddress(StatusBlock())});
  config.extra_attributes.push_back(
      {VTCTX_PCTX_KEY_VTCTX_STATUS_LAYOUT, std::to_string(VTCTX_STATUS_LAYOUT)});
  return config;
}

// What the resource attributes are resolved from; the random instance id is drawn once.
ResourceInputs& Inputs() {
  static ResourceInputs* inputs = new ResourceInputs();  // never destructed
  return *inputs;
}

void ReadProperties(const PropertyReader& properties) {
  Inputs().property_service_name = properties("otel.service.name");
  Inputs().property_resource_attributes = properties("otel.resource.attributes");
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

ProcessContextOutcome PublishProcessContextOnce(const PropertyReader& properties,
                                                const Options& options, const char* load,
                                                const std::string& options_text,
                                                const void* thread_index) {
  if (ProcessContextPublisher* published = PublishedProcessContext()) {
    return {{}, Summary(*published)};
  }
  ResourceInputs& inputs = Inputs();
  inputs.option_service_name = options.service_name;
  ReadProperties(properties);
  inputs.env_service_name = Environment("OTEL_SERVICE_NAME");
  inputs.env_resource_attributes = Environment("OTEL_RESOURCE_ATTRIBUTES");
  inputs.random_instance_id = NewUuidV4();
  if (inputs.random_instance_id.empty()) {
    return {"getrandom(2) failed: no random service.instance.id", {}};
  }
  ResourceAttributes resource = ResolveResourceAttributes(inputs);
  if (!resource.warning.empty()) LogError("%s", resource.warning.c_str());

  // Created once and never freed: readers may read its page and payloads until the process ends.
  static ProcessContextPublisher* publisher = new ProcessContextPublisher(
      PublisherConfig(load, options_text, options.channel, thread_index));
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

void RefreshProcessContextResource(const PropertyReader& properties) {
  ProcessContextPublisher* published = PublishedProcessContext();
  if (published == nullptr) return;
  ReadProperties(properties);
  ResourceAttributes resource = ResolveResourceAttributes(Inputs());
  if (!resource.warning.empty()) LogError("%s", resource.warning.c_str());
  if (std::string error = published->UpdateResource(resource.attributes); !error.empty()) {
    LogError("process context keeps the resource it was published with: %s", error.c_str());
    return;
  }
  LogDebug("process context resource from the JVM's properties: service.name='%s' (from %s)",
           resource.attributes[0].value.c_str(), resource.service_name_source);
}

}  // namespace vtctx
