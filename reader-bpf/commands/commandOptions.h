// The options of each vtctx-reader command as plain structs, parsed from the words after the
// command name (cliArgs.h). Parsing is pure and unit-tested; every error is InvalidArgument with
// one line naming the flag. A command is an options struct, its Parse function, and a Run that
// takes the struct (commands.h); BPF commands run through the shared lifecycle (bpfRun.h).
#ifndef VTCTX_READER_COMMAND_OPTIONS_H_
#define VTCTX_READER_COMMAND_OPTIONS_H_

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "hotspot/agentLoad.h"

namespace vtctx::reader {

// --channel: how the context of the code a thread runs is found (docs/design.md, "Channels").
enum class ChannelChoice { kAuto, kCarrier, kIdentity };

// What every BPF command takes (bpfRun.h).
struct BpfRunOptions {
  pid_t pid = 0;
  double duration_s = 0;         // --duration; 0: until stopped
  std::optional<double> wait_s;  // --wait[=S]: absent nullopt, bare 0 (no limit)
  uint32_t ringbuf_mb = 0;       // --ringbuf-mb, a power of two; the default is the command's
  bool bpf_stats = false;        // --bpf-stats
  bool bpf_floor = false;        // --bpf-floor
  bool verbose = false;          // --verbose
  // --attach [--agent PATH] [--agent-options OPTS]: load the agent first (agentLoad.h).
  std::optional<AgentLoadOptions> attach;
  ChannelChoice channel = ChannelChoice::kAuto;  // --channel; verify reads both
};

struct ResolveOptions {
  bool help = false;  // --help: print the command's help, nothing else
  pid_t pid = 0;
  bool json = false;  // --format json (default text)
  std::optional<double> wait_s;
  std::optional<AgentLoadOptions> attach;  // --attach, as for BPF commands
  ChannelChoice channel = ChannelChoice::kAuto;
};

// `attach --pid P [--agent PATH] [--options OPTS] [--timeout S]`.
struct AttachOptions {
  bool help = false;
  pid_t pid = 0;
  AgentLoadOptions load;
};

struct SyscallsOptions {
  bool help = false;
  BpfRunOptions run;          // --ringbuf-mb defaults to 16
  std::vector<int> syscalls;  // --syscall NAMES|NRS|all, numbers below VTCTX_SYSCALL_MAX
  bool json = false;          // --format json (default text)
  bool raw_tp = false;        // --raw-tp
};

enum class ProfileFormat { kTable, kJson, kFolded, kPprof, kSvg };

struct ProfileOptions {
  bool help = false;
  BpfRunOptions run;  // --ringbuf-mb defaults to 4
  long hz = 99;
  ProfileFormat format = ProfileFormat::kTable;
  std::vector<std::string> group_by;      // attribute names; empty: by trace (--group-by trace)
  std::vector<std::string> folded_attrs;  // --folded-attrs (folded, svg)
  std::vector<std::string> traces;        // --trace: only these trace ids (folded, svg, pprof)
  std::string output;                     // --output FILE (pprof: required; svg); "" = stdout
  bool keep_agent_threads = false;        // --keep-agent-threads
};

// `verify --pid P [--duration S] [--hz N]`: both channels at every sample (verify.h).
struct VerifyOptions {
  bool help = false;
  BpfRunOptions run;  // --ringbuf-mb defaults to 1
  long hz = 99;
};

absl::StatusOr<ResolveOptions> ParseResolveOptions(std::span<char* const> args);
absl::StatusOr<VerifyOptions> ParseVerifyOptions(std::span<char* const> args);
absl::StatusOr<SyscallsOptions> ParseSyscallsOptions(std::span<char* const> args);
absl::StatusOr<ProfileOptions> ParseProfileOptions(std::span<char* const> args);
absl::StatusOr<AttachOptions> ParseAttachOptions(std::span<char* const> args);

}  // namespace vtctx::reader

#endif  // VTCTX_READER_COMMAND_OPTIONS_H_
