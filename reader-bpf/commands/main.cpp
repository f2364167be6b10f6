// vtctx-reader: reads OTEP 4947 thread contexts (`otel_thread_ctx_v1`) of a live process.
//
// Exit codes: in kUsage below (and docs/reader.md).
#include <signal.h>

#include <cstdio>
#include <cstring>
#include <span>

#include "absl/strings/string_view.h"
#include "commands/commandDeadline.h"
#include "commands/commands.h"
#include "commands/readerFlags.h"
#include "output/guardedStderr.h"
#include "vtctx/record.h"
#include "vtctx/version.h"

namespace {

constexpr char kUsage[] =
    "usage: vtctx-reader <command> [options]   (vtctx-reader --version: the vtctx version)\n"
    "\n"
    "Reads the OpenTelemetry thread context (OTEP 4947 `otel_thread_ctx_v1`) of a live process.\n"
    "\n"
    "commands:\n"
    "  attach    --pid P [--agent PATH] [--options OPTS]\n"
    "            loads the vtctx agent into a running HotSpot JVM (21+) and prints its state\n"
    "  resolve   --pid P [--format text|json]\n"
    "            how the TLS symbol resolves, the OTEP 4719 process context, then every\n"
    "            thread's current record\n"
    "  syscalls  --pid P --syscall write[,NAME|NR...] [--format text|json] [--duration S]\n"
    "            one event per syscall entry, tagged with the calling thread's context (BPF)\n"
    "  profile   --pid P [--hz 99] [--duration S] [--format table|json|folded|pprof|svg]\n"
    "            [--output FILE] [--trace ID,...] [--group-by trace|NAME,...]\n"
    "            [--folded-attrs NAME,...]\n"
    "            CPU samples tagged with trace/span and attributes (BPF)\n"
    "  verify    --pid P [--duration S] [--hz 99]\n"
    "            both channels (carrier and identity) read at every CPU sample and compared (BPF)\n"
    "\n"
    "resolve, syscalls, profile and verify take --attach: load the agent first if P lacks it,\n"
    "e.g.  vtctx-reader profile --attach --pid P -d 30 --format pprof --output p.pb.gz\n"
    "resolve, syscalls and profile take --channel auto|carrier|identity (default: the writer's)\n"
    "\n"
    "Record attributes are named through the process context's attribute key map\n"
    "(\"#<index>\" when it names no such key).\n"
    "\n"
    "`vtctx-reader <command> --help` describes a command's options.\n"
    "\n"
    "exit codes:\n"
    "  0  ok; syscalls and profile also when stopped by SIGINT, SIGTERM, SIGHUP, SIGPIPE,\n"
    "     --duration, the target's exit, or stdout closed by its reader (e.g. | head -1)\n"
    "  1  other failure (libbpf, perf_event_open, writing stdout, ...)\n"
    "  2  usage\n"
    "  3  no such process, or it exited while it was resolved or waited for\n"
    "  4  no permission (ptrace; BPF needs root or CAP_BPF and CAP_PERFMON)\n"
    "  5  the process does not export " VTCTX_TLS_SYMBOL
    " (agent not loaded; see --wait)\n"
    "  6  its TLS access is not resolved yet (the middle of a dlopen: retry, or --wait)\n"
    "  7  unsupported (access model, kernel without BTF; attach: not HotSpot, Java < 21, attach\n"
    "     disabled; identity channel: a JVM field or symbol it needs is missing, a collector\n"
    "     that moves objects concurrently on JDK < 24, no thread index)\n"
    "  8  the attach failed (the agent stays inactive: its reason; the JVM's answer; timeout)\n"
    "  9  verify: the channels named different contexts at some sample\n";

int ExitCode(absl::StatusCode code) {
  switch (code) {
    case absl::StatusCode::kOk:
    case absl::StatusCode::kCancelled:  // stopped by a signal while waiting (--wait)
      return 0;
    case absl::StatusCode::kInvalidArgument:
      return 2;
    case absl::StatusCode::kNotFound:
      return 3;
    case absl::StatusCode::kPermissionDenied:
      return 4;
    case absl::StatusCode::kFailedPrecondition:
      return 5;
    case absl::StatusCode::kUnavailable:
      return 6;
    case absl::StatusCode::kUnimplemented:
      return 7;
    case absl::StatusCode::kAborted:
    case absl::StatusCode::kDeadlineExceeded:
      return 8;
    case absl::StatusCode::kDataLoss:
      return 9;
    default:
      return 1;
  }
}

// A command: its options parsed from `args`, then its help printed (--help) or it is run.
template <typename Options>
absl::Status ParseAndRun(absl::StatusOr<Options> (*parse)(std::span<char* const>),
                         vtctx::reader::ReaderCommand command,
                         const vtctx::reader::CommandHelp& help,
                         absl::Status (*run)(const Options&), std::span<char* const> args) {
  absl::StatusOr<Options> options = parse(args);
  if (!options.ok()) return options.status();
  if (options->help) {
    fputs(help.intro, stdout);
    fputs(vtctx::reader::FlagsHelp(command).c_str(), stdout);
    fputs(help.outro, stdout);
    return absl::OkStatus();
  }
  return run(*options);
}

}  // namespace

int main(int argc, char** argv) {
  // Every diagnostic through the guard: no target's text reaches a terminal raw (guardedStderr.h).
  vtctx::reader::GuardStderr();
  // A closed stdout is not an error of the reader: writes fail with EPIPE instead of killing it
  // (the streaming commands handle SIGPIPE as a stop request instead, bpfSupport.h).
  signal(SIGPIPE, SIG_IGN);
  if (argc < 2) {
    fputs(kUsage, stderr);
    return 2;
  }
  const absl::string_view command = argv[1];
  if (command == "--help" || command == "-h" || command == "help") {
    fputs(kUsage, stdout);
    return 0;
  }
  if (command == "--version") {
    fputs("vtctx-reader " VTCTX_VERSION "\n", stdout);
    return 0;
  }
  std::span<char* const> args(argv + 2, static_cast<size_t>(argc - 2));
  vtctx::reader::NameCommandForDeadline(command);
  absl::Status status;
  if (command == "attach") {
    status = ParseAndRun(vtctx::reader::ParseAttachOptions, vtctx::reader::kAttach,
                         vtctx::reader::kAttachHelp, vtctx::reader::RunAttach, args);
  } else if (command == "resolve") {
    status = ParseAndRun(vtctx::reader::ParseResolveOptions, vtctx::reader::kResolve,
                         vtctx::reader::kResolveHelp, vtctx::reader::RunResolve, args);
  } else if (command == "syscalls") {
    status = ParseAndRun(vtctx::reader::ParseSyscallsOptions, vtctx::reader::kSyscalls,
                         vtctx::reader::kSyscallsHelp, vtctx::reader::RunSyscalls, args);
  } else if (command == "profile") {
    status = ParseAndRun(vtctx::reader::ParseProfileOptions, vtctx::reader::kProfile,
                         vtctx::reader::kProfileHelp, vtctx::reader::RunProfile, args);
  } else if (command == "verify") {
    status = ParseAndRun(vtctx::reader::ParseVerifyOptions, vtctx::reader::kVerify,
                         vtctx::reader::kVerifyHelp, vtctx::reader::RunVerify, args);
  } else {
    fprintf(stderr, "vtctx-reader: unknown command '%s'\n%s", argv[1], kUsage);
    return 2;
  }
  fflush(stdout);
  if (!status.ok()) {
    // One line: newlines inside a message would break "one-line reason" consumers.
    std::string message(status.message());
    for (char& c : message) {
      if (c == '\n') c = ' ';
    }
    fprintf(stderr, "vtctx-reader: %s: %s\n", argv[1], message.c_str());
  }
  return ExitCode(status.code());
}
