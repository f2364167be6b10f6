// `vtctx-reader profile`: CPU sampling of the target with each sample tagged by the context of
// the interrupted thread. A cpu-clock perf event per CPU (pid -1, filtered to the target in BPF,
// so threads created later are covered) fires at --hz; table ranks traces by CPU time, json prints
// each sample, folded prints flame-graph input with trace/span as the root frames
// (profileReport.h). Runs through the shared lifecycle (bpfRun.h).
#include "commands/profile.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "commands/bpfRun.h"
#include "commands/bpfSupport.h"
#include "commands/commands.h"
#include "commands/profileReport.h"
#include "commands/sampleRecord.h"
#include "hotspot/jitCodeNames.h"
#include "hotspot/jvmCode.h"
#include "hotspot/userStackUnwind.h"
#include "output/flameGraphSvg.h"
#include "output/outputFile.h"
#include "output/pprofWriter.h"
#include "output/symbolizer.h"
#include "profile.skel.h"
#include "target/processMemory.h"
#include "target/recordFormat.h"

namespace vtctx::reader {

const CommandHelp kProfileHelp = {
    "usage: vtctx-reader profile --pid P [flags]\n"
    "e.g.  vtctx-reader profile --attach --pid P -d 30 --format pprof --output p.pb.gz\n"
    "\n"
    "Samples the CPU use of process P (a cpu-clock perf event per CPU) and tags every sample with\n"
    "the context (trace/span, attributes) the interrupted thread's " VTCTX_TLS_SYMBOL
    " points at. Prints\n"
    "'vtctx-reader: attached' on stderr once live; stops at SIGINT, SIGTERM, SIGHUP, SIGPIPE,\n"
    "--duration, the target's exit or exec, or a closed stdout, then writes the result and a\n"
    "summary line on stderr and exits 0.\n"
    "\n",
    ""};

namespace {

bool NeedsStacks(ProfileFormat format) {
  return format == ProfileFormat::kFolded || format == ProfileFormat::kSvg ||
         format == ProfileFormat::kPprof;
}

class ProfileCommand final : public SkeletonCommand<profile_bpf, profile_bpf__destroy> {
 public:
  explicit ProfileCommand(const ProfileOptions& options)
      : options_(options),
        // Samples go through the ring buffer for json and whenever attributes matter (their
        // values cannot be part of the in-kernel aggregation key cheaply); else they are counted
        // in the kernel.
        // pprof needs each sample's thread and attributes too.
        // Stacks travel in each sample's own event (none lost to a shared stack map).
        events_(options.format == ProfileFormat::kJson || !options.group_by.empty() ||
                !options.folded_attrs.empty() || NeedsStacks(options.format)),
        aggregate_(/*by_thread=*/options.format == ProfileFormat::kPprof) {}

  Wording wording() const override {
    return {"samples", "sample", "ring buffer or aggregation map full"};
  }

  absl::Status Open(const BpfTarget& target) override {
    const bool folded = NeedsStacks(options_.format);
    // Unused maps shrink to their minimum (one page of ring buffer).
    const uint32_t ring_bytes = events_ ? options_.run.ringbuf_mb << 20 : 4096;
    if (absl::Status s = OpenCommon(profile_bpf__open, target, options_.run.bpf_floor, ring_bytes);
        !s.ok()) {
      return s;
    }
    skel_->rodata->mode = events_ ? VTCTX_PROFILE_EVENTS : VTCTX_PROFILE_COUNTS;
    skel_->rodata->event_stacks = folded;
    skel_->rodata->keep_agent_threads = options_.keep_agent_threads;
    // JIT-compiled Java code is named by the JVM itself: first perf map now, the second at the end.
    if (folded) jit_ = JitCodeNames::ForTarget(target.process, kJitTimeoutS);
    if (!jit_) return absl::OkStatus();
    // A HotSpot JVM's stacks are unwound here, from a copy of each sample's user stack, by its
    // own frame layout (hotspot/userStackUnwind.h), with or without frame pointers in its JIT
    // code: frameless stubs keep their callers and interpreted frames their methods, which the
    // kernel's frame-pointer walk cannot give.
    absl::StatusOr<std::unique_ptr<JvmCode>> code = JvmCode::Open(target.process);
    if (code.ok()) {
      code_ = *std::move(code);
      skel_->rodata->copy_user_stack = true;
      if (jit_->preserve_frame_pointer() == false) {
        fprintf(stderr,
                "vtctx-reader: pid %d runs without -XX:+PreserveFramePointer: unwinding a copy of "
                "each sample's user stack by HotSpot's frame layout\n",
                target.process.pid());
      }
      if (!code_->missing().ok()) {
        fprintf(stderr, "vtctx-reader: warning: interpreted or inlined Java frames not named: %s\n",
                std::string(code_->missing().message()).c_str());
      }
    } else if (jit_->preserve_frame_pointer() == false) {
      fprintf(stderr,
              "vtctx-reader: hint: pid %d runs without -XX:+PreserveFramePointer and its code "
              "cache cannot be read (%s): Java stacks stop at the first JIT-compiled frame "
              "(callers lost); restart it with -XX:+PreserveFramePointer for whole stacks\n",
              target.process.pid(), std::string(code.status().message()).c_str());
    } else {
      fprintf(stderr,
              "vtctx-reader: warning: pid %d's code cache cannot be read (%s): stacks by frame "
              "pointers, interpreted and inlined Java frames not named\n",
              target.process.pid(), std::string(code.status().message()).c_str());
    }
    return absl::OkStatus();
  }

  // One sampling event per online CPU.
  absl::Status Attach() override {
    return AttachCpuClocks(skel_->progs.vtctx_sample, options_.hz, links_);
  }

  void Detach() override { links_.clear(); }

  int program_fd() const override { return bpf_program__fd(skel_->progs.vtctx_sample); }
  uint64_t Dropped() const override { return Counter(VTCTX_PC_DROPPED); }

  // Samples from the ring buffer: printed one per line (--format json), or aggregated by context,
  // stacks and attributes (--group-by / --folded-attrs).
  void OnEvent(std::span<const uint8_t> record, TargetContext& context) override {
    std::optional<SampleRecord> sample = ParseSampleRecord(record);
    if (!sample) {
      malformed_++;  // cannot happen: our program reserves whole events
      return;
    }
    // Unwound now, while the code the stack ran is most likely still where it was.
    if (sample->user_registers && code_) {
      UnwoundStack unwound = UnwindUserStack(*sample->user_registers, sample->user_copy,
                                             code_->code_cache(), VTCTX_MAX_STACK_DEPTH);
      sample->stacks.user = std::move(unwound.pcs);
      sample->stacks.interpreted = std::move(unwound.interpreted);
      sample->stacks.innermost_own_code = unwound.innermost_own_code;
      sample->stacks.depth_limited |= unwound.end == UnwindEnd::kDepthLimited;
      sample->stacks.unwind_stopped = unwound.end == UnwindEnd::kStopped;
      sample->stacks.copy_cut = unwound.end == UnwindEnd::kCopyEnd;
    }
    const vtctx_sample_event* e = sample->event;
    const std::span<const uint8_t> attrs = sample->attrs;
    received_++;
    if (!attrs.empty()) context.OnEvent(attrs, e->ts_ns);
    if (options_.format != ProfileFormat::kJson) {
      aggregate_.Add(*sample);
      return;
    }
    const ContextView ctx{e->ctx.status, e->ctx.record, e->ctx.header, attrs};
    json_with_context_ += IsValidContext(ctx) ? 1 : 0;
    line_.clear();
    absl::StrAppend(&line_, "{\"ts_ns\":", e->ts_ns, ",\"pid\":", e->tgid, ",\"tid\":", e->tid,
                    ",\"cpu\":", e->cpu, ",");
    AppendContextJson(line_, ctx, &context.names());
    line_ += "}\n";
    fwrite(line_.data(), 1, line_.size(), stdout);
  }

  RunCounts Report(const RunEnd& end) override {
    uint64_t delivered = received_;
    uint64_t with_context = json_with_context_;
    if (options_.format != ProfileFormat::kJson) {
      const std::vector<SampleCount> counts =
          events_ ? aggregate_.Counts() : ReadKernelCounts(bpf_map__fd(skel_->maps.counts));
      if (!events_) delivered = TotalSamples(counts);
      with_context = SamplesWithContext(counts);
      Print(counts, end);
    }
    // Every sample of the target was delivered (counted, or sent and consumed) or dropped.
    RunCounts out{delivered, 0, Counter(VTCTX_PC_DROPPED), ""};
    out.matched = out.delivered + out.dropped;
    out.with_context = with_context;
    if (NeedsStacks(options_.format)) {
      // Every sample carries its own stacks: none is lost; the incomplete ones are counted.
      const StackCounts& s = aggregate_.stack_counts();
      out.extra = absl::StrFormat(" stacks_depth_limited=%d stacks_no_user=%d", s.depth_limited,
                                  s.user_failed);
      if (code_) {
        absl::StrAppendFormat(&out.extra, " stacks_unwind_stopped=%d stacks_copy_cut=%d",
                              s.unwind_stopped, s.copy_cut);
      }
    }
    if (interpreted_named_ + interpreted_refused_ > 0) {
      absl::StrAppendFormat(&out.extra, " interpreted_named=%d interpreted_unnamed=%d",
                            interpreted_named_, interpreted_refused_);
    }
    if (NmethodScopes* inlined = code_ ? code_->inlined() : nullptr; inlined && jit_finished_) {
      const InlineCounts& c = inlined->counts();
      absl::StrAppendFormat(&out.extra, " inline_nmethods=%d inline_refused=%d", c.nmethods,
                            c.refused);
      if (c.refused > 0) {
        fprintf(stderr,
                "vtctx-reader: note: %d nmethods kept their outer name unexpanded (freed, moved or "
                "unreadable by the end of the profile), first: %s\n",
                static_cast<int>(c.refused), inlined->first_refusal().c_str());
      }
    }
    if (const uint64_t agent = Counter(VTCTX_PC_AGENT_THREAD); agent > 0) {
      absl::StrAppendFormat(&out.extra, " agent_thread_samples=%d", agent);
    }
    if (malformed_ > 0) absl::StrAppendFormat(&out.extra, " malformed=%d", malformed_);
    out.written = written_;
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
    if (NeedsStacks(options_.format)) {
      PrintStacks(KeepTraces(counts, options_.traces), end);
    } else if (!options_.group_by.empty()) {
      PrintGroupedTable(counts, options_.group_by, names, run);
    } else {
      PrintTraceTable(counts, run);
    }
  }

  // folded, svg, pprof: symbolized while the target (normally) still runs.
  void PrintStacks(const std::vector<SampleCount>& counts, const RunEnd& end) {
    if (end.execed) {
      // Its maps, files and JIT are the new program's now: nothing is named from them.
      written_ = absl::NotFoundError(absl::StrCat(
          "pid ", end.target.pid(),
          " ran another program (exec) during the profile: its stacks cannot be named any more "
          "(rerun against the new program)"));
      return;
    }
    // Inlined methods from the nmethods as they are now (the JVM still runs): each is checked
    // against the perf map before it is expanded (nmethodScopes.h).
    if (jit_) {
      jit_->Finish();
      jit_finished_ = true;
    }
    Symbolizer symbols(end.target, jit_ ? &jit_->names() : nullptr, code_.get());
    WriteStacks(counts, end, symbols);
    interpreted_named_ = symbols.interpreted_named;
    interpreted_refused_ = symbols.interpreted_refused;
    if (symbols.symbols_refused > 0) {
      fprintf(stderr,
              "vtctx-reader: note: the symbols of %llu mapped files were not read (the run's "
              "bound, %zu MiB, was reached): their frames read lib.so+0xoffset\n",
              static_cast<unsigned long long>(symbols.symbols_refused), kMaxSymbolBytes >> 20);
    }
  }

  void WriteStacks(const std::vector<SampleCount>& counts, const RunEnd& end, Symbolizer& symbols) {
    const AttributeNames& names = end.context.names();
    if (options_.format == ProfileFormat::kPprof) {
      PprofProfile profile = PprofSamples(counts, symbols, names);
      profile.period_ns = static_cast<int64_t>(SamplePeriodNs(options_.hz));
      profile.duration_nanos = static_cast<int64_t>(end.seconds * 1e9);
      timespec now{};
      clock_gettime(CLOCK_REALTIME, &now);
      profile.time_nanos = now.tv_sec * 1'000'000'000 + now.tv_nsec - profile.duration_nanos;
      NoteOverBudget(profile.texts);
      written_ = WriteGzipFile(options_.output, EncodePprof(profile));
      return;
    }
    const FoldedProfile folded = FoldedStacks(counts, symbols, options_.folded_attrs, names);
    NoteOverBudget(folded.frames);
    if (options_.format == ProfileFormat::kFolded) return PrintFolded(folded);
    const std::string svg = RenderFlameGraph(
        folded, absl::StrFormat("pid %d: CPU, %.1f s at %d Hz%s", end.target.pid(), end.seconds,
                                options_.hz, options_.traces.empty() ? "" : ", selected traces"));
    if (options_.output.empty()) {
      fwrite(svg.data(), 1, svg.size(), stdout);
    } else {
      written_ = WriteOutputFile(options_.output, svg);
    }
  }

  // Frame names past their bound (foldedProfile.h) are said once.
  static void NoteOverBudget(const TextPool& texts) {
    if (!texts.over_budget()) return;
    fprintf(stderr,
            "vtctx-reader: note: frame names past %zu MiB in all read %s (the target's names are "
            "that many)\n",
            kMaxFrameTextBytes >> 20, kFramesOverBudget);
  }

  static constexpr double kJitTimeoutS = 10;
  const ProfileOptions options_;
  const bool events_;           // samples reach user space as ring-buffer events
  std::vector<BpfLink> links_;  // released before skel_
  uint64_t received_ = 0;
  uint64_t json_with_context_ = 0;  // --format json: samples printed with a context
  uint64_t malformed_ = 0;          // records ParseSampleRecord refused
  std::string line_;
  SampleAggregate aggregate_;
  std::unique_ptr<JitCodeNames> jit_;
  bool jit_finished_ = false;      // its second perf map read: inlined frames asked about
  std::unique_ptr<JvmCode> code_;  // set when samples carry user stack copies
  uint64_t interpreted_named_ = 0, interpreted_refused_ = 0;  // the symbolizer's
  absl::Status written_;                                      // writing --output
};

}  // namespace

absl::Status RunProfile(const ProfileOptions& options) {
  ProfileCommand command(options);
  return RunBpfCommand(command, options.run);
}

}  // namespace vtctx::reader
