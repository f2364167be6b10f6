#include "commands/cliArgs.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"

namespace vtctx::reader {
namespace {

const FlagSpec* FindSpec(absl::string_view name, std::span<const FlagSpec> specs,
                         std::span<const FlagSpec> more) {
  for (std::span<const FlagSpec> list : {specs, more}) {
    for (const FlagSpec& spec : list) {
      if (spec.name == name) return &spec;
    }
  }
  return nullptr;
}

// Short spellings, as async-profiler's asprof has them (-d 30, -o FILE): the spec's short name.
absl::string_view LongName(absl::string_view word, std::span<const FlagSpec> specs,
                           std::span<const FlagSpec> more) {
  if (word.size() != 2 || word[0] != '-' || word[1] == '-') return "";
  for (std::span<const FlagSpec> list : {specs, more}) {
    for (const FlagSpec& spec : list) {
      if (spec.short_name == word.substr(1)) return spec.name;
    }
  }
  return "";
}

}  // namespace

std::string ParsedArgs::Get(absl::string_view name, absl::string_view fallback) const {
  auto it = values_.find(name);
  return it == values_.end() ? std::string(fallback) : it->second;
}

absl::StatusOr<pid_t> ParsedArgs::Pid() const {
  if (!Has("pid")) return absl::InvalidArgumentError("--pid is required");
  int pid = 0;
  if (!absl::SimpleAtoi(Get("pid"), &pid) || pid <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--pid wants a process id, not '", Get("pid"), "'"));
  }
  return pid;
}

absl::StatusOr<double> ParsedArgs::Seconds(absl::string_view name) const {
  if (!Has(name)) return 0.0;
  double seconds = 0;
  if (!absl::SimpleAtod(Get(name), &seconds) || !std::isfinite(seconds) || seconds <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", name, " wants a positive number of seconds, not '", Get(name), "'"));
  }
  return seconds;
}

absl::StatusOr<std::optional<double>> ParsedArgs::OptionalSeconds(absl::string_view name) const {
  if (!Has(name)) return std::nullopt;
  if (Get(name).empty()) return 0.0;
  absl::StatusOr<double> seconds = Seconds(name);
  if (!seconds.ok()) return seconds.status();
  return *seconds;
}

absl::StatusOr<long> ParsedArgs::Integer(absl::string_view name, long fallback, long min,
                                         long max) const {
  if (!Has(name)) return fallback;
  int64_t value = 0;
  if (!absl::SimpleAtoi(Get(name), &value) || value < min || value > max) {
    return absl::InvalidArgumentError(absl::StrCat("--", name, " wants an integer in [", min, ", ",
                                                   max, "], not '", Get(name), "'"));
  }
  return static_cast<long>(value);
}

absl::StatusOr<std::string> ParsedArgs::Choice(absl::string_view name,
                                               std::span<const absl::string_view> choices) const {
  if (!Has(name)) return std::string(choices.front());
  const std::string value = Get(name);
  if (std::find(choices.begin(), choices.end(), value) == choices.end()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--", name, " wants one of ", absl::StrJoin(choices, "|"), ", not '", value, "'"));
  }
  return value;
}

absl::StatusOr<ParsedArgs> ParseArgs(std::span<char* const> args, std::span<const FlagSpec> specs,
                                     std::span<const FlagSpec> more) {
  ParsedArgs parsed;
  for (size_t i = 0; i < args.size(); ++i) {
    absl::string_view word = args[i];
    if (word == "-h" || word == "--help") {
      parsed.values_["help"] = "";
      continue;
    }
    if (const absl::string_view name = LongName(word, specs, more); !name.empty()) {
      word = name;
    } else if (word.size() < 3 || word.substr(0, 2) != "--") {
      return absl::InvalidArgumentError(absl::StrCat("unexpected argument '", word, "'"));
    } else {
      word.remove_prefix(2);
    }
    absl::string_view name = word;
    std::optional<absl::string_view> inline_value;
    if (size_t eq = word.find('='); eq != absl::string_view::npos) {
      name = word.substr(0, eq);
      inline_value = word.substr(eq + 1);
    }
    const FlagSpec* spec = FindSpec(name, specs, more);
    if (spec == nullptr) return absl::InvalidArgumentError(absl::StrCat("unknown option --", name));
    std::string value;
    if (spec->takes_value) {
      if (inline_value.has_value()) {
        value = std::string(*inline_value);
      } else if (spec->value_optional) {
        value.clear();
      } else if (i + 1 < args.size()) {
        value = args[++i];
      } else {
        return absl::InvalidArgumentError(absl::StrCat("--", name, " needs a value"));
      }
    } else if (inline_value.has_value()) {
      return absl::InvalidArgumentError(absl::StrCat("--", name, " takes no value"));
    }
    parsed.values_[std::string(name)] = std::move(value);
  }
  return parsed;
}

}  // namespace vtctx::reader
