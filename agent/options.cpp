#include "options.h"

#include <algorithm>
#include <charconv>

#include "processContextPublisher.h"
#include "threadContextRecord.h"

namespace vtctx {
namespace {

constexpr const char* kValidKeys =
    "log, stats, onerror, bind, record_size, fault, service_name, attribute_keys, reader_resync, "
    "report";

// attribute_keys separator: '|' never occurs in attribute keys and cannot clash with the ','
// that separates options.
constexpr char kAttributeKeySeparator = '|';

// Appends instead of "'" + s: GCC 12 reports a false -Wrestrict for that form at -O3.
std::string Quote(std::string_view s) { return std::string(1, '\'').append(s).append(1, '\''); }

// Returns an error message, or empty if the pair was applied.
std::string Apply(std::string_view key, std::string_view value, Options& o) {
  auto bad_value = [&](const char* expected) {
    return "option " + std::string(key) + ": bad value " + Quote(value) + " (expected " + expected +
           ")";
  };
  if (key == "log") {
    if (value == "off")
      o.log = LogLevel::kOff;
    else if (value == "error")
      o.log = LogLevel::kError;
    else if (value == "info")
      o.log = LogLevel::kInfo;
    else if (value == "debug")
      o.log = LogLevel::kDebug;
    else
      return bad_value("off|error|info|debug");
  } else if (key == "stats") {
    if (value.empty()) return bad_value("a file path");
    o.stats_path = std::string(value);
  } else if (key == "onerror") {
    if (value == "continue")
      o.on_error = OnError::kContinue;
    else if (value == "abort")
      o.on_error = OnError::kAbort;
    else
      return bad_value("continue|abort");
  } else if (key == "bind") {
    if (value == "mount")
      o.bind = BindAt::kFirstMount;
    else if (value == "start")
      o.bind = BindAt::kStart;
    else if (value == "use")
      o.bind = BindAt::kFirstUse;
    else
      return bad_value("mount|start|use");
  } else if (key == "record_size") {
    size_t size = 0;
    auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), size);
    if (ec != std::errc() || end != value.data() + value.size() || !IsValidRecordSize(size)) {
      return bad_value("a multiple of 64 from 64 to 640");
    }
    o.record_size = size;
  } else if (key == "fault") {
    if (value == "none")
      o.fault = Fault::kNone;
    else if (value == "stale-carrier")
      o.fault = Fault::kStaleCarrier;
    else
      return bad_value("none|stale-carrier");
  } else if (key == "service_name") {
    if (value.empty()) return bad_value("a service name");
    o.service_name = std::string(value);
  } else if (key == "attribute_keys") {
    std::vector<std::string> keys;
    std::string_view rest = value;
    while (true) {
      const size_t bar = rest.find(kAttributeKeySeparator);
      const std::string_view k = rest.substr(0, bar);
      if (KeyError e = ValidateAttributeKey(k); e != KeyError::kNone) {
        return "option attribute_keys: key " + Quote(k) + ": " + Describe(e) +
               " (expected key|key|...)";
      }
      bool seen = false;
      for (const std::string& have : keys) seen = seen || have == k;
      if (!seen) keys.emplace_back(k);
      if (bar == std::string_view::npos) break;
      rest.remove_prefix(bar + 1);
    }
    if (keys.size() > kMaxAttributeKeys) {
      return "option attribute_keys: " + std::to_string(keys.size()) + " keys (at most " +
             std::to_string(kMaxAttributeKeys) + ")";
    }
    o.attribute_keys = std::move(keys);
  } else if (key == "reader_resync") {
    if (value == "on")
      o.reader_resync = true;
    else if (value == "off")
      o.reader_resync = false;
    else
      return bad_value("on|off");
  } else if (key == "report") {
    if (value.empty()) return bad_value("a file path");
    o.report_path = std::string(value);
  } else {
    return "unknown option " + Quote(key) + " (valid keys: " + kValidKeys + ")";
  }
  return {};
}

}  // namespace

const char* ValidOptionKeys() { return kValidKeys; }

const char* BindName(BindAt bind) {
  switch (bind) {
    case BindAt::kStart:
      return "start";
    case BindAt::kFirstUse:
      return "use";
    case BindAt::kFirstMount:
      break;
  }
  return "mount";
}

OptionsParseResult ParseOptions(const char* text) {
  OptionsParseResult result;
  std::vector<std::string_view> seen_keys;  // a key given twice is an error, never "last wins"
  std::string_view rest = text ? std::string_view(text) : std::string_view();
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    rest = (comma == std::string_view::npos) ? std::string_view() : rest.substr(comma + 1);
    if (item.empty()) continue;  // tolerate "a=b,,c=d" and a trailing comma
    const size_t eq = item.find('=');
    std::string error;
    if (eq == std::string_view::npos || eq == 0) {
      error = "malformed option " + Quote(item) +
              " (expected key=value; valid keys: " + kValidKeys + ")";
    } else if (const std::string_view key = item.substr(0, eq);
               std::find(seen_keys.begin(), seen_keys.end(), key) != seen_keys.end()) {
      error = "option " + std::string(key) + " given twice (give each key once)";
    } else {
      seen_keys.push_back(key);
      error = Apply(key, item.substr(eq + 1), result.options);
    }
    if (result.error.empty()) result.error = std::move(error);  // report the first problem
  }
  return result;
}

}  // namespace vtctx
