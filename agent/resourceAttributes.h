// The resource attributes the agent publishes in the OTEP 4719 process context, resolved the way
// the OpenTelemetry Java SDK resolves them, so that profiles and the SDK's own telemetry agree.
// Pure logic (no JVM), unit-tested.
//
//   service.name         agent option service_name, else -Dotel.service.name, else
//                        OTEL_SERVICE_NAME, else service.name from the resource attributes below,
//                        else "unknown_service:java" (the OTel default for a Java process)
//   service.instance.id  from the resource attributes below if given, else a random UUID v4
//   telemetry.sdk.language  "java"
//   every other key=value of -Dotel.resource.attributes if set, else of OTEL_RESOURCE_ATTRIBUTES
//
// An empty setting counts as unset (OTel configuration rule). Order in the result: service.name,
// service.instance.id, telemetry.sdk.language, then the remaining configured attributes in the
// order they first appear (a repeated key keeps its last value).
#ifndef VTCTX_AGENT_RESOURCE_ATTRIBUTES_H_
#define VTCTX_AGENT_RESOURCE_ATTRIBUTES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "processContextPublisher.h"

namespace vtctx {

inline constexpr const char* kDefaultServiceName = "unknown_service:java";

struct ResourceInputs {
  std::string option_service_name;                          // agent option; "" = unset
  std::optional<std::string> property_service_name;         // -Dotel.service.name
  std::optional<std::string> env_service_name;              // OTEL_SERVICE_NAME
  std::optional<std::string> property_resource_attributes;  // -Dotel.resource.attributes
  std::optional<std::string> env_resource_attributes;       // OTEL_RESOURCE_ATTRIBUTES
  std::string random_instance_id;                           // used if none is configured
};

struct ResourceAttributes {
  std::vector<StringAttribute> attributes;
  const char* service_name_source = "";  // where service.name came from, for the log
  // Non-empty if the configured resource attributes were discarded: one line saying why.
  std::string warning;
};

ResourceAttributes ResolveResourceAttributes(const ResourceInputs& inputs);

// Parses an OTEL_RESOURCE_ATTRIBUTES value: comma-separated key=value pairs, whitespace around
// keys and values trimmed, empty items skipped, keys and values percent-decoded (%XX; '+' is a
// plus). Returns "" and the pairs in order, or an error (a pair without '=', an empty key, a bad
// %-escape, or a result that is not UTF-8), in which case the whole value must be discarded as the
// OTel specification says.
std::string ParseResourceAttributes(std::string_view text, std::vector<StringAttribute>* out);

// A random (version 4, RFC 9562 variant) UUID in lowercase 8-4-4-4-12 form from 16 random bytes.
std::string FormatUuidV4(const uint8_t (&random)[16]);

// FormatUuidV4 over bytes from getrandom(2); "" if the kernel gives no randomness.
std::string NewUuidV4();

}  // namespace vtctx

#endif  // VTCTX_AGENT_RESOURCE_ATTRIBUTES_H_
