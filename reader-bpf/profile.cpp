// `vtctx-reader profile`: CPU sampling of the target with each sample tagged by the context of
// the interrupted thread. A cpu-clock perf event per CPU (pid -1, filtered to the target in BPF,
// so threads created later are covered) fires at --hz; table ranks traces by CPU time, json prints
// each sample, folded prints flame-graph input with trace/span as the root frames
// (profileReport.h). Runs through the shared lifecycle (bpfRun.h).
#include "profile.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bpfRun.h"
#include "bpfSupport.h"
#include "commands.h"
#include "jitCodeNames.h"
#include "profile.skel.h"
#include "profileReport.h"
#include "recordFormat.h"
#include "symbolizer.h"

namespace vtctx::reader {

const char kProfileHelp[] =
    "usage: vtctx-reader profile --pid P [--hz 99] [--duration S] [--format table|json|folded]\n"
    "                            [--group-by trace|NAME[,NAME...]] [--folded-attrs NAME[,...]]\n"
    "                            [--wait[=S]] [--ringbuf-mb N] [--bpf-stats] [--verbose]\n"
    "\n"
    "Samples the CPU use of process P (a cpu-clock perf event per CPU) and tags every sample with\n"
    "the context (trace/span, attributes) the interrupted thread's " VTCTX_TLS_SYMBOL
    " points at. Prints\n"
    "'vtctx-reader: attached' on stderr once live; stops at SIGINT, SIGTERM, SIGHUP, SIGPIPE,\n"
    "--duration, the target's exit or a closed stdout, then prints the result and a summary line "
    "on\n"
    "stderr and exits 0.\n"
    "\n"
    "  --pid P          target process (all its threads)\n"
    "  --hz N           samples per second of CPU time, per CPU (default 99)\n"
    "  --duration S     stop after S seconds\n" VTCTX_WAIT_HELP VTCTX_ATTACH_HELP
    "  --format F       table (default): traces ranked by CPU time;\n"
    "                   json: one object per sample (tid, cpu, ts_ns, record, valid, trace_id,\n"
    "                   span_id, trace_flags, context, attrs, attributes);\n"
    "                   folded: 'trace_<id>;span_<id>;frames... count' lines for flame graphs\n"
    "                   (user stacks by frame pointers: run the JVM with "
    "-XX:+PreserveFramePointer;\n"
    "                   JIT frames named by the JVM itself: its perf map, asked for through\n"
    "                   its attach socket when sampling starts and ends)\n"
    "  --group-by G     table: rank by trace (default), or by the values of the named record\n"
    "                   attributes (names from P's OTEP 4719 attribute key map, or #<index>),\n"
    "                   e.g. --group-by http.route\n"
    "  --folded-attrs A folded: start each stack with '<name>=<value>' frames of these\n"
    "                   attributes, e.g. --folded-attrs http.route,user.id\n"
    "                   (--group-by/--folded-attrs send every sample to user space, like json)\n"
    "  --ringbuf-mb N   ring buffer size in MiB for json, --group-by and --folded-attrs, a\n"
    "                   power of two (default 4)\n"
    "  --bpf-floor      benchmark aid: programs stop right after the pid filter (no output), to\n"
    "                   measure the fixed cost of a run with --bpf-stats\n"
    "  --bpf-stats      enable kernel BPF run-time statistics and report ns per sample\n"
    "  --verbose        libbpf diagnostics\n";

namespace {

struct SkelDeleter {
  void operator()(profile_bpf* skel) const { profile_bpf__destroy(skel); }
};
struct LinkDeleter {
  void operator()(bpf_link* link) const { bpf_link__destroy(link); }  // also closes the perf fd
};

// A cpu-clock perf event on `cpu` sampling at `hz` (all tasks: the program filters), or -1 with
// errno set.
int OpenCpuClock(int cpu, long hz) {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_CPU_CLOCK;
  attr.freq = 1;
  attr.sample_freq = static_cast<__u64>(hz);
  return static_cast<int>(syscall(__NR_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC));
}

class ProfileCommand final : public BpfCommand {
 public:
  explicit ProfileCommand(const ProfileOptions& options)
      : options_(options),
        // Samples go through the ring buffer for json and whenever attributes matter (their
        // values cannot be part of the in-kernel aggregation key cheaply); else they are counted
        // in the kernel.
        events_(options.format == ProfileFormat::kJson || !options.group_by.empty() ||
                !options.folded_attrs.empty()) {}

  Wording wording() const override {
    return {"samples", "sample", "ring buffer or aggregation map full"};
  }

  absl::Status Open(const BpfTarget& target) override {
    skel_.reset(profile_bpf__open());
    if (!skel_) return absl::InternalError(absl::StrCat("opening BPF object: ", strerror(errno)));
    const bool folded = options_.format == ProfileFormat::kFolded;
    // Unused maps shrink to their minimum (one page of ring buffer, one stack slot).
    const uint32_t ring_bytes = events_ ? options_.run.ringbuf_mb << 20 : 4096;
    SetCommonRodata(*skel_->rodata, target, options_.run.bpf_floor, ring_bytes);
    skel_->rodata->mode = events_  ? VTCTX_PROFILE_EVENTS
                          : folded ? VTCTX_PROFILE_STACKS
                                   : VTCTX_PROFILE_COUNTS;
    skel_->rodata->event_stacks = events_ && folded;
    if (bpf_map__set_max_entries(skel_->maps.events, ring_bytes) != 0 ||
        bpf_map__set_max_entries(skel_->maps.stacks, folded ? 16384 : 1) != 0) {
      return absl::InternalError("sizing the BPF maps failed");
    }
    // JIT-compiled Java code is named by the JVM itself: first perf map now, the second at the end.
    if (folded) jit_ = JitCodeNames::ForTarget(target.process, kJitTimeoutS);
    if (jit_ && jit_->preserve_frame_pointer() == false) {
      fprintf(stderr,
              "vtctx-reader: hint: pid %d runs without -XX:+PreserveFramePointer: Java stacks stop "
              "at the first JIT-compiled frame (callers lost); restart it with "
              "-XX:+PreserveFramePointer for whole stacks\n",
              target.process.pid());
    }
    return absl::OkStatus();
  }

  bpf_object_skeleton* skeleton() override { return skel_->skeleton; }

  // One sampling event per online CPU.
  absl::Status Attach() override {
    const int cpus = libbpf_num_possible_cpus();
    for (int cpu = 0; cpu < cpus; ++cpu) {
      const int fd = OpenCpuClock(cpu, options_.hz);
      if (fd < 0) {
        if (errno == ENODEV) continue;  // offline CPU
        return absl::InternalError(
            absl::StrCat("perf_event_open on CPU ", cpu, ": ", strerror(errno)));
      }
      bpf_link* link = bpf_program__attach_perf_event(skel_->progs.vtctx_sample, fd);
      if (link == nullptr) {
        const int err = errno;
        close(fd);
        return absl::InternalError(absl::StrCat("attaching to CPU ", cpu, ": ", strerror(err)));
      }
      links_.emplace_back(link);
    }
    if (links_.empty()) return absl::InternalError("no online CPU to sample");
    return absl::OkStatus();
  }

  void Detach() override { links_.clear(); }

  int events_fd() const override { return bpf_map__fd(skel_->maps.events); }
  int program_fd() const override { return bpf_program__fd(skel_->progs.vtctx_sample); }
  uint64_t Dropped() const override { return Counter(VTCTX_PC_DROPPED); }

  // Samples from the ring buffer: printed one per line (--format json), or aggregated by context,
  // stacks and attributes (--group-by / --folded-attrs).
  void OnEvent(std::span<const uint8_t> record, TargetContext& context) override {
    if (record.size() < sizeof(vtctx_sample_event)) return;  // cannot happen: whole events
    const auto* e = reinterpret_cast<const vtctx_sample_event*>(record.data());
    const std::span<const uint8_t> attrs =
        record.subspan(sizeof *e, std::min<size_t>(e->ctx.attrs_len, record.size() - sizeof *e));
    received_++;
    if (!attrs.empty()) context.OnEvent(attrs, e->ts_ns);
    if (options_.format != ProfileFormat::kJson) {
      aggregate_.Add(*e, attrs);
      return;
    }
    const ContextView ctx{e->ctx.status, e->ctx.record, e->ctx.header, attrs};
    line_.clear();
    absl::StrAppend(&line_, "{\"ts_ns\":", e->ts_ns, ",\"pid\":", e->tgid, ",\"tid\":", e->tid,
                    ",\"cpu\":", e->cpu, ",");
    AppendContextJson(line_, ctx, &context.names());
    line_ += "}\n";
    fwrite(line_.data(), 1, line_.size(), stdout);
  }

  RunCounts Report(const RunEnd& end) override {
    uint64_t delivered = received_;
    if (options_.format != ProfileFormat::kJson) {
      const std::vector<SampleCount> counts =
          events_ ? aggregate_.Counts() : ReadKernelCounts(bpf_map__fd(skel_->maps.counts));
      if (!events_) delivered = TotalSamples(counts);
      Print(counts, end);
    }
    // Every sample of the target was delivered (counted, or sent and consumed) or dropped.
    RunCounts out{delivered, 0, Counter(VTCTX_PC_DROPPED), ""};
    out.matched = out.delivered + out.dropped;
    if (const uint64_t lost = Counter(VTCTX_PC_STACK_LOST); lost > 0) {
      out.extra = absl::StrFormat(" stacks_lost=%d", lost);
    }
    return out;
  }

 private:
  uint64_t Counter(uint32_t which) const {
    return SumPerCpu(bpf_map__fd(skel_->maps.counters), which);
  }

  void Print(const std::vector<SampleCount>& counts, const RunEnd& end) {
    const AttributeNames& names = end.context.names();
    WarnUnknownNames(options_.group_by, names);
    WarnUnknownNames(options_.folded_attrs, names);
    const ProfileRun run{end.target.pid(), options_.hz, end.seconds};
    if (options_.format == ProfileFormat::kFolded) {
      if (jit_) jit_->Finish();
      // While the target (normally) still runs.
      Symbolizer symbols(run.pid, end.target.dir(), jit_ ? &jit_->names() : nullptr);
      PrintFolded(counts, bpf_map__fd(skel_->maps.stacks), symbols, options_.folded_attrs, names);
    } else if (!options_.group_by.empty()) {
      PrintGroupedTable(counts, options_.group_by, names, run);
    } else {
      PrintTraceTable(counts, run);
    }
  }

  static constexpr double kJitTimeoutS = 10;
  const ProfileOptions options_;
  const bool events_;  // samples reach user space as ring-buffer events
  std::unique_ptr<profile_bpf, SkelDeleter> skel_;
  std::vector<std::unique_ptr<bpf_link, LinkDeleter>> links_;  // released before skel_
  uint64_t received_ = 0;
  std::string line_;
  SampleAggregate aggregate_;
  std::unique_ptr<JitCodeNames> jit_;
};

}  // namespace

absl::Status RunProfile(const ProfileOptions& options) {
  ProfileCommand command(options);
  return RunBpfCommand(command, options.run);
}

}  // namespace vtctx::reader
