#include "commands/bpfRun.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "commands/bpfSupport.h"
#include "commands/commandDeadline.h"
#include "commands/contextWarning.h"
#include "hotspot/agentLoad.h"
#include "hotspot/javaThreadLayout.h"
#include "target/agentWait.h"
#include "target/monotonicClock.h"
#include "target/processMemory.h"
#include "target/tlsResolver.h"
#include "target/untrustedText.h"

namespace vtctx::reader {
namespace {

struct RingBufferDeleter {
  void operator()(ring_buffer* rb) const { ring_buffer__free(rb); }
};

// The fd that keeps kernel BPF run-time statistics enabled (--bpf-stats), if any.
struct StatsEnabled {
  int fd = -1;
  StatsEnabled() = default;
  StatsEnabled(const StatsEnabled&) = delete;
  StatsEnabled& operator=(const StatsEnabled&) = delete;
  ~StatsEnabled() {
    if (fd >= 0) close(fd);
  }
};

// Hands each ring-buffer record to the command and counts it in the batch.
struct Consumer {
  BpfCommand& command;
  TargetContext& context;
  EventBatch batch;

  static int OnRecord(void* self, void* data, size_t size) {
    auto* consumer = static_cast<Consumer*>(self);
    consumer->command.OnEvent({static_cast<const uint8_t*>(data), size}, consumer->context);
    return consumer->batch.Count();
  }
};

bool SameSlots(const vtctx_slot_recipe& a, const vtctx_slot_recipe& b) {
  return a.kind == b.kind && a.tp_offset == b.tp_offset && a.module_id == b.module_id &&
         a.module_offset == b.module_offset;
}

// The slot recipe for the BPF programs (agentWait.h; a stop signal ends a wait), telling stderr
// which module was used and warning when several modules export the symbol with different slots.
absl::StatusOr<ModuleResolution> ResolveTarget(const TargetProcess& target,
                                               std::optional<double> wait) {
  const pid_t pid = target.pid();
  absl::StatusOr<std::unique_ptr<ProcessMemory>> memory = target.Memory();
  if (!memory.ok()) return ProcessAccessError(pid, memory.status());
  absl::StatusOr<Resolution> resolution = ResolveWithWait(target, **memory, wait, StopRequested);
  if (!resolution.ok()) return resolution.status();
  for (const std::string& w : resolution->warnings) {
    fprintf(stderr, "vtctx-reader: warning: %s\n", w.c_str());
  }
  const ModuleResolution& chosen = resolution->modules.front();
  for (size_t i = 1; i < resolution->modules.size(); ++i) {
    if (!SameSlots(chosen.recipe, resolution->modules[i].recipe)) {
      fprintf(stderr,
              "vtctx-reader: warning: %s also exports " VTCTX_TLS_SYMBOL
              " with a different slot; following %s only\n",
              Printable(resolution->modules[i].path, 4096).c_str(),
              Printable(chosen.path, 4096).c_str());
    }
  }
  fprintf(stderr, "vtctx-reader: pid %d: %s\n", pid, DescribeModule(chosen).c_str());
  return chosen;
}

// The channel the programs follow (--channel; verify reads both, so it wants the identity
// recipe and the writer's carrier slot).
absl::StatusOr<IdentityRecipe> FollowedChannel(const TargetProcess& target,
                                               const BpfRunOptions& options) {
  absl::StatusOr<std::unique_ptr<ProcessMemory>> memory = target.Memory();
  if (!memory.ok()) return ProcessAccessError(target.pid(), memory.status());
  std::string note;
  const std::optional<bool> identity =
      options.channel == ChannelChoice::kAuto
          ? std::nullopt
          : std::optional(options.channel == ChannelChoice::kIdentity);
  absl::StatusOr<IdentityRecipe> channel = ChooseChannel(target, **memory, identity, &note);
  if (!channel.ok()) return channel.status();
  if (!note.empty()) fprintf(stderr, "vtctx-reader: %s\n", note.c_str());
  fprintf(stderr, "vtctx-reader: pid %d: %s\n", target.pid(), channel->description.c_str());
  return channel;
}

absl::Status LoadAndAttach(BpfCommand& command, const TargetProcess& target, bool bpf_stats,
                           StatsEnabled& stats) {
  if (bpf_stats) {
    absl::StatusOr<int> fd = EnableBpfRunTimeStats();
    if (!fd.ok()) return fd.status();
    stats.fd = *fd;
  }
  if (int err = bpf_object__load_skeleton(command.skeleton()); err != 0) {
    return absl::InternalError(absl::StrCat("loading BPF programs: ", strerror(-err),
                                            " (rerun with --verbose for the verifier log)"));
  }
  if (absl::Status s = command.AttachExecWatch(); !s.ok()) return s;
  if (absl::Status s = command.Attach(); !s.ok()) return s;
  // An exec before the watch was attached is seen here (the programs see the ones after it).
  if (target.Execed()) {
    return absl::NotFoundError(absl::StrCat("pid ", target.pid(),
                                            " ran another program (exec) before the reader "
                                            "attached; rerun against it if it is the one to read"));
  }
  return absl::OkStatus();
}

constexpr char kExeced[] = "target exec'd";

// The stop condition that holds now, or null.
const char* StopReason(const BpfCommand& command, const TargetProcess& target, double duration_s,
                       double elapsed_s) {
  // Closed stdout first: the SIGPIPE of a write to it also requests a stop.
  if (StdoutClosed()) return "stdout closed";
  if (StopRequested()) return "signal";
  // Every event of the target is in the ring by the time it has exited (each was submitted by one
  // of its threads, before that thread could exit), and no event of a process reusing the pid is
  // (targetFilter.bpf.h): detach and drain is exact.
  if (target.Exited()) return "target exited";
  // Another program in the same process: what is read of it now would be the new program's.
  if (command.TargetExeced() || target.Execed()) return kExeced;
  if (duration_s > 0 && elapsed_s >= duration_s) return "duration";
  return nullptr;
}

// Consumes events until a stop condition, warning once a second while drops grow. Returns the
// condition's name for the summary.
absl::StatusOr<const char*> Consume(ring_buffer* rb, Consumer& consumer,
                                    const TargetProcess& target, double duration_s, double start) {
  // The target's exit and stdout's closing end a wait at once.
  const pollfd wake[] = {{target.exit_fd(), POLLIN, 0}, kStdoutClosed};
  const BpfCommand::Wording words = consumer.command.wording();
  double next_check = start + 1.0;
  uint64_t reported_drops = 0;
  for (;;) {
    if (absl::Status read = ReadEventBatch(rb, consumer.batch, wake); !read.ok()) return read;
    if (absl::Status flushed = FlushStdout(); !flushed.ok()) return flushed;
    const double now = MonotonicSeconds();
    if (const char* reason = StopReason(consumer.command, target, duration_s, now - start)) {
      return reason;
    }
    if (now < next_check) continue;
    next_check = now + 1.0;
    if (const uint64_t drops = consumer.command.Dropped(); drops > reported_drops) {
      fprintf(stderr, "vtctx-reader: warning: %llu %s dropped so far (%s)\n",
              static_cast<unsigned long long>(drops), std::string(words.events).c_str(),
              std::string(words.drop_cause).c_str());
      reported_drops = drops;
    }
  }
}

void PrintSummary(const BpfCommand& command, const RunCounts& counts, const char* stop_reason,
                  double seconds, const TargetContext& context) {
  const BpfCommand::Wording words = command.wording();
  std::string summary = absl::StrFormat(
      "vtctx-reader: summary: %s=%d matched=%d dropped=%d with_context=%d (%s, %.1f s)",
      words.events, counts.delivered, counts.matched, counts.dropped, counts.with_context,
      stop_reason, seconds);
  summary += counts.extra;
  summary += context.SummaryFields();
  const ProgramRunStats stats = ReadProgramRunStats(command.program_fd());
  if (stats.run_cnt > 0) {
    // Runs include every invocation (other processes' syscall entries, samples of other tasks),
    // filtered out in a few instructions; the per-event figure charges all of that time to the
    // target's events (an upper bound).
    absl::StrAppendFormat(
        &summary, " bpf_runs=%d bpf_run_time_ns=%d bpf_ns_per_run=%.1f", stats.run_cnt,
        stats.run_time_ns,
        static_cast<double>(stats.run_time_ns) / static_cast<double>(stats.run_cnt));
    if (counts.matched > 0) {
      absl::StrAppendFormat(
          &summary, " bpf_ns_per_%s_max=%.1f", words.event,
          static_cast<double>(stats.run_time_ns) / static_cast<double>(counts.matched));
    }
  }
  fprintf(stderr, "%s\n", summary.c_str());
}

}  // namespace

absl::Status RunBpfCommand(BpfCommand& command, const BpfRunOptions& options) {
  // From here on stop signals end the run cleanly (a stop before attach exits right after it).
  InstallStopHandlers();
  const std::string stage = absl::StrCat("getting ready to read pid ", options.pid);
  const std::optional<double> deadline = SetupDeadline(options.attach, options.wait_s);
  if (deadline) ArmCommandDeadline(*deadline, stage);
  if (absl::Status s = CheckBpfAccess(); !s.ok()) return s;
  SetLibbpfVerbose(options.verbose);
  absl::StatusOr<TargetProcess> target = TargetProcess::Hold(options.pid);
  if (!target.ok()) return target.status();
  if (absl::Status s = AttachBeforeRun(*target, options.attach); !s.ok()) return s;
  absl::StatusOr<ModuleResolution> resolved = ResolveTarget(*target, options.wait_s);
  if (!resolved.ok()) return resolved.status();
  if (!deadline) ArmCommandDeadline(kSetupDeadlineS, stage);  // the wait is over
  absl::StatusOr<IdentityRecipe> channel = FollowedChannel(*target, options);
  if (!channel.ok()) return channel.status();

  if (absl::Status s = command.Open({*target, resolved->recipe, channel->recipe}); !s.ok()) {
    return s;
  }
  StatsEnabled stats;
  if (absl::Status s = LoadAndAttach(command, *target, options.bpf_stats, stats); !s.ok()) {
    return s;
  }
  // Read after attaching: events from before this read are covered by it (processContextWatch.h).
  TargetContext context(*target, options.verbose);
  Consumer consumer{command, context, {}};
  std::unique_ptr<ring_buffer, RingBufferDeleter> rb(
      ring_buffer__new(command.events_fd(), Consumer::OnRecord, &consumer, nullptr));
  if (!rb) return absl::InternalError(absl::StrCat("ring buffer: ", strerror(errno)));

  setvbuf(stdout, nullptr, _IOFBF, 1 << 20);
  if (const std::string detail = command.AttachDetail(); options.verbose && !detail.empty()) {
    fprintf(stderr, "vtctx-reader: %s\n", detail.c_str());
  }
  fprintf(stderr, "vtctx-reader: attached\n");
  fflush(stderr);
  DisarmCommandDeadline();  // the run lasts until a stop condition

  const double start = MonotonicSeconds();
  absl::StatusOr<const char*> stop_reason =
      Consume(rb.get(), consumer, *target, options.duration_s, start);
  if (!stop_reason.ok()) return stop_reason.status();
  ArmCommandDeadline(ReportDeadline(MonotonicSeconds() - start), "writing the result");
  // Detach first so the counters are final, then drain what is already in the ring buffer.
  command.Detach();
  DrainEvents(rb.get(), consumer.batch);
  const double seconds = MonotonicSeconds() - start;
  const RunCounts counts =
      command.Report({seconds, *target, context, std::string_view(*stop_reason) == kExeced});
  // The summary goes out even when stdout failed; the failure is returned after it.
  const absl::Status flushed = FlushStdout();
  PrintSummary(command, counts, *stop_reason, seconds, context);
  // A target that exec'd is another program now: its context is nothing to diagnose.
  const std::string warning =
      target->Execed()
          ? ""
          : ContextWarning(counts.with_context, counts.delivered, command.wording().events,
                           ReadWriterFacts(*target, channel->recipe.kind != VTCTX_IDENTITY_NONE));
  if (!warning.empty()) fprintf(stderr, "vtctx-reader: %s\n", warning.c_str());
  return counts.written.ok() ? flushed : counts.written;
}

}  // namespace vtctx::reader
