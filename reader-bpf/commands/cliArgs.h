// Command-line parsing shared by the subcommands: `--name value`, `--name=value` and boolean
// `--name` flags, checked against each subcommand's list; anything else is a usage error.
#ifndef VTCTX_READER_CLI_ARGS_H_
#define VTCTX_READER_CLI_ARGS_H_

#include <sys/types.h>

#include <map>
#include <optional>
#include <span>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace vtctx::reader {

struct FlagSpec {
  absl::string_view name;  // without the leading "--"
  bool takes_value;
  bool value_optional = false;        // with takes_value: a value only as `--name=value`
  absl::string_view short_name = "";  // one letter: `-x value` means `--name value`
};

class ParsedArgs {
 public:
  bool Has(absl::string_view name) const { return values_.contains(std::string(name)); }
  // The value of `name`, or `fallback` if absent.
  std::string Get(absl::string_view name, absl::string_view fallback = "") const;

  // Typed accessors; InvalidArgument names the flag and the expected form.
  absl::StatusOr<pid_t> Pid() const;                             // --pid, required
  absl::StatusOr<double> Seconds(absl::string_view name) const;  // > 0; 0 if absent
  // `--name[=S]`: nullopt if absent, 0 (no limit) without a value, else S > 0.
  absl::StatusOr<std::optional<double>> OptionalSeconds(absl::string_view name) const;
  absl::StatusOr<long> Integer(absl::string_view name, long fallback, long min, long max) const;
  // The value must be one of `choices`; the first choice is the default.
  absl::StatusOr<std::string> Choice(absl::string_view name,
                                     std::span<const absl::string_view> choices) const;

 private:
  friend absl::StatusOr<ParsedArgs> ParseArgs(std::span<char* const> args,
                                              std::span<const FlagSpec> specs,
                                              std::span<const FlagSpec> more);
  std::map<std::string, std::string, std::less<>> values_;
};

// Parses `args` (the words after the subcommand) against the flags of `specs` and `more` (e.g.
// flags shared by several commands, then a command's own). `--help` is always accepted.
absl::StatusOr<ParsedArgs> ParseArgs(std::span<char* const> args, std::span<const FlagSpec> specs,
                                     std::span<const FlagSpec> more = {});

}  // namespace vtctx::reader

#endif  // VTCTX_READER_CLI_ARGS_H_
