#include "commands/commandOptions.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "commands/cliArgs.h"
#include "commands/readerFlags.h"
#include "commands/syscallTable.h"
#include "commands/syscalls.h"

namespace vtctx::reader {
namespace {

constexpr absl::string_view kTextFormats[] = {"text", "json"};
constexpr absl::string_view kChannels[] = {"auto", "carrier", "identity"};
constexpr absl::string_view kAgentChannels[] = {"carrier", "identity"};
constexpr absl::string_view kProfileFormats[] = {"table", "json", "folded", "pprof", "svg"};
constexpr double kMaxAttachTimeoutS = 3600;  // an hour: anything longer is a typo

// A numeric default of the flag table (readerFlags.h).
long DefaultNumber(ReaderCommand command, absl::string_view name) {
  long value = 0;
  return absl::SimpleAtoi(FlagDefault(command, name), &value) ? value : 0;
}

// The agent's options with channel=identity added for `channel` identity; a channel= already in
// them must agree.
absl::StatusOr<std::string> AgentOptionsFor(std::string options, absl::string_view channel) {
  for (absl::string_view word : absl::StrSplit(options, ',')) {
    if (absl::StartsWith(word, "channel=")) {
      if (channel != "carrier" && word.substr(8) != channel) {
        return absl::InvalidArgumentError(
            absl::StrCat("--channel ", channel, " contradicts the agent option ", word));
      }
      return options;
    }
  }
  if (channel != "identity") return options;
  return options.empty() ? std::string("channel=identity") : options + ",channel=identity";
}

// --channel of the commands that read one channel.
absl::StatusOr<ChannelChoice> ParseChannel(const ParsedArgs& parsed) {
  absl::StatusOr<std::string> channel = parsed.Choice("channel", kChannels);
  if (!channel.ok()) return channel.status();
  return *channel == "identity"  ? ChannelChoice::kIdentity
         : *channel == "carrier" ? ChannelChoice::kCarrier
                                 : ChannelChoice::kAuto;
}

// --attach with --agent and --agent-options (resolve, syscalls, profile, verify); those two
// without --attach are a usage error. --channel identity loads the agent with channel=identity;
// with neither --channel nor a channel= option, the channel is chosen at the attach
// (AgentLoadOptions::choose_channel), except for `verify`, which compares both.
absl::StatusOr<std::optional<AgentLoadOptions>> ParseAttachFlags(const ParsedArgs& parsed,
                                                                 ChannelChoice channel,
                                                                 bool may_choose = true) {
  if (!parsed.Has("attach")) {
    if (parsed.Has("agent") || parsed.Has("agent-options")) {
      return absl::InvalidArgumentError("--agent and --agent-options go with --attach");
    }
    return std::nullopt;
  }
  absl::StatusOr<std::string> agent_options = AgentOptionsFor(
      parsed.Get("agent-options"), channel == ChannelChoice::kIdentity ? "identity" : "carrier");
  if (!agent_options.ok()) return agent_options.status();
  const bool choose = may_choose && channel == ChannelChoice::kAuto &&
                      !absl::StrContains(absl::StrCat(",", *agent_options), ",channel=");
  return AgentLoadOptions{parsed.Get("agent"), *agent_options,
                          static_cast<double>(DefaultNumber(kAttach, "timeout")), choose};
}

// Parses a command's `args` against `specs` and `more`: a usage error shows the way to its help;
// with --help the options say only that; else `fill` reads the flags into them.
template <typename Options>
absl::StatusOr<Options> ParseCommand(absl::string_view command, ReaderCommand which,
                                     std::span<char* const> args,
                                     absl::Status (*fill)(const ParsedArgs&, Options&)) {
  absl::StatusOr<ParsedArgs> parsed = ParseArgs(args, FlagSpecsOf(which));
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(parsed.status().message(), " (see vtctx-reader ", command, " --help)"));
  }
  Options options;
  if (parsed->Has("help")) {
    options.help = true;
    return options;
  }
  if (absl::Status s = fill(*parsed, options); !s.ok()) return s;
  return options;
}

absl::Status ParseRunOptions(const ParsedArgs& parsed, ReaderCommand command, BpfRunOptions& run) {
  absl::StatusOr<pid_t> pid = parsed.Pid();
  if (!pid.ok()) return pid.status();
  absl::StatusOr<double> duration = parsed.Seconds("duration");
  if (!duration.ok()) return duration.status();
  absl::StatusOr<std::optional<double>> wait = parsed.OptionalSeconds("wait");
  if (!wait.ok()) return wait.status();
  absl::StatusOr<long> ringbuf_mb =
      parsed.Integer("ringbuf-mb", DefaultNumber(command, "ringbuf-mb"), 1, 1024);
  if (!ringbuf_mb.ok()) return ringbuf_mb.status();
  if ((*ringbuf_mb & (*ringbuf_mb - 1)) != 0) {
    return absl::InvalidArgumentError("--ringbuf-mb must be a power of two");
  }
  run.pid = *pid;
  run.duration_s = *duration;
  run.wait_s = *wait;
  run.ringbuf_mb = static_cast<uint32_t>(*ringbuf_mb);
  run.bpf_stats = parsed.Has("bpf-stats");
  run.bpf_floor = parsed.Has("bpf-floor");
  run.verbose = parsed.Has("verbose");
  if (command != kVerify) {
    absl::StatusOr<ChannelChoice> channel = ParseChannel(parsed);
    if (!channel.ok()) return channel.status();
    run.channel = *channel;
  }
  absl::StatusOr<std::optional<AgentLoadOptions>> attach =
      ParseAttachFlags(parsed, run.channel, /*may_choose=*/command != kVerify);
  if (!attach.ok()) return attach.status();
  run.attach = *std::move(attach);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<int>> ParseSyscalls(const std::string& spec) {
  std::vector<int> out;
  if (spec == "all") {
    for (int nr = 0; nr < VTCTX_SYSCALL_MAX; ++nr) out.push_back(nr);
    return out;
  }
  for (absl::string_view word : absl::StrSplit(spec, ',', absl::SkipEmpty())) {
    int nr = -1;
    if (!absl::SimpleAtoi(word, &nr)) {
      std::optional<int> known = SyscallNumber(word);
      if (!known.has_value()) {
        return absl::InvalidArgumentError(absl::StrCat("unknown syscall '", word, "'"));
      }
      nr = *known;
    }
    if (nr < 0 || nr >= VTCTX_SYSCALL_MAX) {
      return absl::InvalidArgumentError(absl::StrCat("syscall number ", nr, " out of range"));
    }
    out.push_back(nr);
  }
  if (out.empty()) return absl::InvalidArgumentError("--syscall is required (e.g. write)");
  return out;
}

// The comma-separated names of flag `flag` (none if absent). Names are attribute keys as the
// process context spells them, or "#<index>".
absl::StatusOr<std::vector<std::string>> NameList(const ParsedArgs& parsed,
                                                  absl::string_view flag) {
  std::vector<std::string> out;
  if (!parsed.Has(flag)) return out;
  for (absl::string_view name : absl::StrSplit(parsed.Get(flag), ',')) {
    if (name.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--", flag, " wants comma-separated names, not '", parsed.Get(flag), "'"));
    }
    out.emplace_back(name);
  }
  return out;
}

// --group-by and --folded-attrs, checked against the format.
absl::Status ParseAttributeGrouping(const ParsedArgs& parsed, ProfileOptions& options) {
  absl::StatusOr<std::vector<std::string>> group_by = NameList(parsed, "group-by");
  if (!group_by.ok()) return group_by.status();
  if (group_by->size() == 1 && group_by->front() == "trace") group_by->clear();
  if (!group_by->empty() && options.format != ProfileFormat::kTable) {
    return absl::InvalidArgumentError("--group-by applies to --format table");
  }
  if (std::find(group_by->begin(), group_by->end(), "trace") != group_by->end()) {
    return absl::InvalidArgumentError(
        "--group-by wants 'trace' or attribute names, not both (traces are counted per group)");
  }
  absl::StatusOr<std::vector<std::string>> folded_attrs = NameList(parsed, "folded-attrs");
  if (!folded_attrs.ok()) return folded_attrs.status();
  const bool stacks =
      options.format == ProfileFormat::kFolded || options.format == ProfileFormat::kSvg;
  if (!folded_attrs->empty() && !stacks) {
    return absl::InvalidArgumentError("--folded-attrs applies to --format folded and svg");
  }
  options.group_by = *std::move(group_by);
  options.folded_attrs = *std::move(folded_attrs);
  return absl::OkStatus();
}

// --output and --trace, checked against the format.
absl::Status ParseProfileOutput(const ParsedArgs& parsed, ProfileOptions& options) {
  const bool file_format =
      options.format == ProfileFormat::kPprof || options.format == ProfileFormat::kSvg;
  if (parsed.Has("output") && !file_format) {
    return absl::InvalidArgumentError("--output applies to --format pprof and svg");
  }
  options.output = parsed.Get("output");
  if (options.format == ProfileFormat::kPprof && options.output.empty()) {
    return absl::InvalidArgumentError("--format pprof needs --output FILE (e.g. p.pb.gz)");
  }
  absl::StatusOr<std::vector<std::string>> traces = NameList(parsed, "trace");
  if (!traces.ok()) return traces.status();
  for (const std::string& t : *traces) {
    if (t.size() != 32 || t.find_first_not_of("0123456789abcdef") != std::string::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("--trace wants 32 lowercase hex digits per trace id, not '", t, "'"));
    }
  }
  if (!traces->empty() && options.format != ProfileFormat::kFolded && !file_format) {
    return absl::InvalidArgumentError("--trace applies to --format folded, svg and pprof");
  }
  options.traces = *std::move(traces);
  return absl::OkStatus();
}

absl::Status FillResolve(const ParsedArgs& parsed, ResolveOptions& options) {
  absl::StatusOr<pid_t> pid = parsed.Pid();
  if (!pid.ok()) return pid.status();
  absl::StatusOr<std::string> format = parsed.Choice("format", kTextFormats);
  if (!format.ok()) return format.status();
  absl::StatusOr<std::optional<double>> wait = parsed.OptionalSeconds("wait");
  if (!wait.ok()) return wait.status();
  options.pid = *pid;
  options.json = *format == "json";
  options.wait_s = *wait;
  absl::StatusOr<ChannelChoice> channel = ParseChannel(parsed);
  if (!channel.ok()) return channel.status();
  options.channel = *channel;
  absl::StatusOr<std::optional<AgentLoadOptions>> attach =
      ParseAttachFlags(parsed, options.channel);
  if (!attach.ok()) return attach.status();
  options.attach = *std::move(attach);
  return absl::OkStatus();
}

absl::Status FillSyscalls(const ParsedArgs& parsed, SyscallsOptions& options) {
  if (absl::Status s = ParseRunOptions(parsed, kSyscalls, options.run); !s.ok()) return s;
  if (!parsed.Has("syscall"))
    return absl::InvalidArgumentError("--syscall is required (e.g. write)");
  absl::StatusOr<std::vector<int>> syscalls = ParseSyscalls(parsed.Get("syscall"));
  if (!syscalls.ok()) return syscalls.status();
  absl::StatusOr<std::string> format = parsed.Choice("format", kTextFormats);
  if (!format.ok()) return format.status();
  options.syscalls = *std::move(syscalls);
  options.json = *format == "json";
  options.raw_tp = parsed.Has("raw-tp");
  return absl::OkStatus();
}

absl::Status FillProfile(const ParsedArgs& parsed, ProfileOptions& options) {
  if (absl::Status s = ParseRunOptions(parsed, kProfile, options.run); !s.ok()) return s;
  absl::StatusOr<long> hz = parsed.Integer("hz", DefaultNumber(kProfile, "hz"), 1, 100000);
  if (!hz.ok()) return hz.status();
  absl::StatusOr<std::string> format = parsed.Choice("format", kProfileFormats);
  if (!format.ok()) return format.status();
  options.hz = *hz;
  options.keep_agent_threads = parsed.Has("keep-agent-threads");
  options.format = *format == "json"     ? ProfileFormat::kJson
                   : *format == "folded" ? ProfileFormat::kFolded
                   : *format == "pprof"  ? ProfileFormat::kPprof
                   : *format == "svg"    ? ProfileFormat::kSvg
                                         : ProfileFormat::kTable;
  if (absl::Status s = ParseAttributeGrouping(parsed, options); !s.ok()) return s;
  return ParseProfileOutput(parsed, options);
}

absl::Status FillVerify(const ParsedArgs& parsed, VerifyOptions& options) {
  if (absl::Status s = ParseRunOptions(parsed, kVerify, options.run); !s.ok()) return s;
  absl::StatusOr<long> hz = parsed.Integer("hz", DefaultNumber(kVerify, "hz"), 1, 100000);
  if (!hz.ok()) return hz.status();
  options.hz = *hz;
  return absl::OkStatus();
}

absl::Status FillAttach(const ParsedArgs& parsed, AttachOptions& options) {
  absl::StatusOr<pid_t> pid = parsed.Pid();
  if (!pid.ok()) return pid.status();
  absl::StatusOr<double> timeout = parsed.Seconds("timeout");
  if (!timeout.ok()) return timeout.status();
  if (*timeout > kMaxAttachTimeoutS) {
    return absl::InvalidArgumentError(
        absl::StrCat("--timeout ", *timeout, ": at most ", kMaxAttachTimeoutS, " seconds"));
  }
  absl::StatusOr<std::string> channel = parsed.Choice("channel", kAgentChannels);
  if (!channel.ok()) return channel.status();
  absl::StatusOr<std::string> agent_options = AgentOptionsFor(parsed.Get("options"), *channel);
  if (!agent_options.ok()) return agent_options.status();
  options.pid = *pid;
  options.load.agent_path = parsed.Get("agent");
  options.load.agent_options = *agent_options;
  options.load.timeout_s =
      *timeout > 0 ? *timeout : static_cast<double>(DefaultNumber(kAttach, "timeout"));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ResolveOptions> ParseResolveOptions(std::span<char* const> args) {
  return ParseCommand<ResolveOptions>("resolve", kResolve, args, FillResolve);
}

absl::StatusOr<SyscallsOptions> ParseSyscallsOptions(std::span<char* const> args) {
  return ParseCommand<SyscallsOptions>("syscalls", kSyscalls, args, FillSyscalls);
}

absl::StatusOr<ProfileOptions> ParseProfileOptions(std::span<char* const> args) {
  return ParseCommand<ProfileOptions>("profile", kProfile, args, FillProfile);
}

absl::StatusOr<VerifyOptions> ParseVerifyOptions(std::span<char* const> args) {
  return ParseCommand<VerifyOptions>("verify", kVerify, args, FillVerify);
}

absl::StatusOr<AttachOptions> ParseAttachOptions(std::span<char* const> args) {
  return ParseCommand<AttachOptions>("attach", kAttach, args, FillAttach);
}

}  // namespace vtctx::reader
