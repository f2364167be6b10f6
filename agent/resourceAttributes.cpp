#include "resourceAttributes.h"

#include <sys/random.h>

#include <cerrno>

#include "vtctx/utf8.h"

namespace vtctx {
namespace {

std::string_view Trim(std::string_view s) {
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Percent-decodes `s` into `*out`. False on a '%' not followed by two hex digits.
bool PercentDecode(std::string_view s, std::string* out) {
  out->clear();
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out->push_back(s[i]);
      continue;
    }
    if (s.size() - i < 3 || HexDigit(s[i + 1]) < 0 || HexDigit(s[i + 2]) < 0) return false;
    out->push_back(static_cast<char>(HexDigit(s[i + 1]) * 16 + HexDigit(s[i + 2])));
    i += 2;
  }
  return true;
}

const std::optional<std::string>& NonEmpty(const std::optional<std::string>& s) {
  static const std::optional<std::string> kUnset;
  return s && !s->empty() ? s : kUnset;
}

}  // namespace

std::string ParseResourceAttributes(std::string_view text, std::vector<StringAttribute>* out) {
  out->clear();
  std::string_view rest = text;
  while (true) {
    const size_t comma = rest.find(',');
    const std::string_view item = Trim(rest.substr(0, comma));
    if (!item.empty()) {
      // Appends instead of "'" + ...: GCC 12 reports a false -Wrestrict for that form at -O3.
      auto error = [&](const char* what) {
        return std::string(1, '\'').append(item).append("' ").append(what);
      };
      const size_t eq = item.find('=');
      if (eq == std::string_view::npos) return error("is not key=value");
      StringAttribute a;
      if (!PercentDecode(Trim(item.substr(0, eq)), &a.key) ||
          !PercentDecode(Trim(item.substr(eq + 1)), &a.value)) {
        return error("has a bad %-escape");
      }
      if (a.key.empty()) return error("has an empty key");
      if (!IsValidUtf8(a.key) || !IsValidUtf8(a.value)) return error("does not decode to UTF-8");
      out->push_back(std::move(a));
    }
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return {};
}

ResourceAttributes ResolveResourceAttributes(const ResourceInputs& in) {
  ResourceAttributes result;
  std::vector<StringAttribute> configured;
  const char* configured_source = nullptr;
  if (const auto& p = NonEmpty(in.property_resource_attributes)) {
    configured_source = "-Dotel.resource.attributes";
    result.warning = ParseResourceAttributes(*p, &configured);
  } else if (const auto& e = NonEmpty(in.env_resource_attributes)) {
    configured_source = "OTEL_RESOURCE_ATTRIBUTES";
    result.warning = ParseResourceAttributes(*e, &configured);
  }
  if (!result.warning.empty()) {
    result.warning = std::string(configured_source) + " ignored: " + result.warning;
    configured.clear();
  }

  // Last value wins for a repeated key; first appearance fixes the order.
  std::vector<StringAttribute> unique;
  for (StringAttribute& a : configured) {
    bool replaced = false;
    for (StringAttribute& u : unique) {
      if (u.key == a.key) {
        u.value = std::move(a.value);
        replaced = true;
        break;
      }
    }
    if (!replaced) unique.push_back(std::move(a));
  }
  auto take = [&unique](std::string_view key) -> std::optional<std::string> {
    for (auto it = unique.begin(); it != unique.end(); ++it) {
      if (it->key == key) {
        std::string value = std::move(it->value);
        unique.erase(it);
        return value;
      }
    }
    return std::nullopt;
  };
  std::optional<std::string> configured_name = NonEmpty(take("service.name"));
  std::optional<std::string> configured_instance = NonEmpty(take("service.instance.id"));
  take("telemetry.sdk.language");  // ours is authoritative: this is a Java process

  std::string service_name;
  if (!in.option_service_name.empty()) {
    service_name = in.option_service_name;
    result.service_name_source = "agent option service_name";
  } else if (const auto& p = NonEmpty(in.property_service_name)) {
    service_name = *p;
    result.service_name_source = "-Dotel.service.name";
  } else if (const auto& e = NonEmpty(in.env_service_name)) {
    service_name = *e;
    result.service_name_source = "OTEL_SERVICE_NAME";
  } else if (configured_name) {
    service_name = *configured_name;
    result.service_name_source = configured_source;
  } else {
    service_name = kDefaultServiceName;
    result.service_name_source = "default";
  }

  result.attributes.push_back({"service.name", std::move(service_name)});
  result.attributes.push_back(
      {"service.instance.id", configured_instance ? *configured_instance : in.random_instance_id});
  result.attributes.push_back({"telemetry.sdk.language", "java"});
  for (StringAttribute& a : unique) result.attributes.push_back(std::move(a));
  return result;
}

std::string FormatUuidV4(const uint8_t (&random)[16]) {
  uint8_t b[16];
  for (int i = 0; i < 16; ++i) b[i] = random[i];
  b[6] = static_cast<uint8_t>((b[6] & 0x0f) | 0x40);  // version 4
  b[8] = static_cast<uint8_t>((b[8] & 0x3f) | 0x80);  // variant 10xx
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s;
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s.push_back('-');
    s.push_back(kHex[b[i] >> 4]);
    s.push_back(kHex[b[i] & 0x0f]);
  }
  return s;
}

std::string NewUuidV4() {
  uint8_t random[16];
  size_t got = 0;
  while (got < sizeof random) {
    const ssize_t n = getrandom(random + got, sizeof random - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return {};
    got += static_cast<size_t>(n);
  }
  return FormatUuidV4(random);
}

}  // namespace vtctx
