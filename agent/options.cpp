#include "options.h"

#include <algorithm>
#include <charconv>
#include <utility>

#include "optionTable.h"
#include "processContextPublisher.h"
#include "threadContextRecord.h"

namespace vtctx {
namespace {

// attribute_keys separator: '|' never occurs in attribute keys and cannot clash with the ','
// that separates options.
constexpr char kAttributeKeySeparator = '|';

// Appends instead of "'" + s: GCC 12 reports a false -Wrestrict for that form at -O3.
std::string Quote(std::string_view s) { return std::string(1, '\'').append(s).append(1, '\''); }

std::string BadValue(std::string_view key, std::string_view value, const char* expected) {
  return "option " + std::string(key) + ": bad value " + Quote(value) + " (expected " + expected +
         ")";
}

// The spellings of each option whose value is one of a fixed set: {spelling, value}. Parsing
// looks a spelling up (Choose); the names the agent reports (BindName, ...) look a value up
// (Spelling), so the first entry is also the name of a value outside the table.
constexpr std::pair<const char*, LogLevel> kLogLevels[] = {{"off", LogLevel::kOff},
                                                           {"error", LogLevel::kError},
                                                           {"info", LogLevel::kInfo},
                                                           {"debug", LogLevel::kDebug}};
constexpr std::pair<const char*, OnError> kOnErrors[] = {{"continue", OnError::kContinue},
                                                         {"abort", OnError::kAbort}};
constexpr std::pair<const char*, BindAt> kBinds[] = {
    {"mount", BindAt::kFirstMount}, {"start", BindAt::kStart}, {"use", BindAt::kFirstUse}};
constexpr std::pair<const char*, ShimLoaders> kShimLoaders[] = {
    {"operator", ShimLoaders::kOperator},
    {"system", ShimLoaders::kSystem},
    {"any", ShimLoaders::kAny}};
constexpr std::pair<const char*, Channel> kChannels[] = {{"carrier", Channel::kCarrier},
                                                         {"identity", Channel::kIdentity}};
constexpr std::pair<const char*, Fault> kFaults[] = {{"none", Fault::kNone},
                                                     {"stale-carrier", Fault::kStaleCarrier},
                                                     {"identity-index", Fault::kIdentityIndex}};
constexpr std::pair<const char*, bool> kOnOff[] = {{"on", true}, {"off", false}};

template <typename T, size_t N>
std::string Choose(std::string_view key, std::string_view value,
                   const std::pair<const char*, T> (&choices)[N], T& out) {
  std::string expected;
  for (const auto& [spelling, v] : choices) {
    if (value == spelling) {
      out = v;
      return {};
    }
    if (!expected.empty()) expected += '|';
    expected += spelling;  // appended, not "|" + s: GCC 12's false -Wrestrict at -O3
  }
  return BadValue(key, value, expected.c_str());
}

template <typename T, size_t N>
const char* Spelling(const std::pair<const char*, T> (&choices)[N], T value) {
  for (const auto& [spelling, v] : choices) {
    if (v == value) return spelling;
  }
  return choices[0].first;
}

// The parser of an option whose value is one of `choices`, stored into the Options field `field`.
template <auto field, const auto& choices>
std::string ParseChoice(std::string_view key, std::string_view value, Options& o) {
  return Choose(key, value, choices, o.*field);
}

// The parser of a file the agent writes (stats=, report=) into the Options field `field`: any
// non-empty path; ownedFile.h checks the file when it is written.
template <std::string Options::*field>
std::string ParsePath(std::string_view key, std::string_view value, Options& o) {
  if (value.empty()) return BadValue(key, value, "a file path");
  o.*field = std::string(value);
  return {};
}

std::string ParseRecordSize(std::string_view key, std::string_view value, Options& o) {
  size_t size = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), size);
  if (ec != std::errc() || end != value.data() + value.size() || !IsValidRecordSize(size)) {
    return BadValue(key, value, "a multiple of 64 from 64 to 640");
  }
  o.record_size = size;
  return {};
}

std::string ParseServiceName(std::string_view key, std::string_view value, Options& o) {
  if (value.empty()) return BadValue(key, value, "a service name");
  o.service_name = std::string(value);
  return {};
}

std::string ParseAttributeKeys(std::string_view, std::string_view value, Options& o) {
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
  return {};
}

// The other parsers optionTable.h names, in its order.
constexpr auto ParseLog = ParseChoice<&Options::log, kLogLevels>;
constexpr auto ParseStats = ParsePath<&Options::stats_path>;
constexpr auto ParseOnError = ParseChoice<&Options::on_error, kOnErrors>;
constexpr auto ParseChannel = ParseChoice<&Options::channel, kChannels>;
constexpr auto ParseThreadIndex = ParseChoice<&Options::thread_index, kOnOff>;
constexpr auto ParseBind = ParseChoice<&Options::bind, kBinds>;
constexpr auto ParseShimLoaders = ParseChoice<&Options::shim_loaders, kShimLoaders>;
constexpr auto ParseReaderResync = ParseChoice<&Options::reader_resync, kOnOff>;
constexpr auto ParseReport = ParsePath<&Options::report_path>;
constexpr auto ParseFault = ParseChoice<&Options::fault, kFaults>;

struct OptionParser {
  std::string_view key;
  std::string (*parse)(std::string_view key, std::string_view value, Options& o);
};

constexpr OptionParser kOptionParsers[] = {
#define VTCTX_OPTION_PARSER(key, parser, values, default_value, meaning) {#key, parser},
    VTCTX_AGENT_OPTIONS(VTCTX_OPTION_PARSER)
#undef VTCTX_OPTION_PARSER
};

constexpr const char* kValidKeys = [] {
  return ""
#define VTCTX_OPTION_KEY(key, parser, values, default_value, meaning) ", " #key
         VTCTX_AGENT_OPTIONS(VTCTX_OPTION_KEY)
#undef VTCTX_OPTION_KEY
         + 2;  // without the first ", "
}();

// Returns an error message, or empty if the pair was applied.
std::string Apply(std::string_view key, std::string_view value, Options& o) {
  for (const OptionParser& p : kOptionParsers) {
    if (p.key == key) return p.parse(key, value, o);
  }
  return "unknown option " + Quote(key) + " (valid keys: " + kValidKeys + ")";
}

}  // namespace

const char* ValidOptionKeys() { return kValidKeys; }

const char* FaultName(Fault fault) { return Spelling(kFaults, fault); }

const char* ChannelName(Channel channel) { return Spelling(kChannels, channel); }

const char* BindName(BindAt bind) { return Spelling(kBinds, bind); }

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
