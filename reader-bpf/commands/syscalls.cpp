// `vtctx-reader syscalls`: one event per entry of the selected syscalls in the target process,
// tagged with the context the calling thread's `otel_thread_ctx_v1` pointed at on entry. Runs
// through the shared lifecycle (bpfRun.h). Nothing is lost silently: ring-buffer overflows are
// counted in BPF, warned about while running and reported in the final summary line.
#include "commands/syscalls.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "commands/bpfRun.h"
#include "commands/bpfSupport.h"
#include "commands/commands.h"
#include "commands/syscallTable.h"
#include "syscalls.skel.h"
#include "target/recordFormat.h"

namespace vtctx::reader {

const CommandHelp kSyscallsHelp = {
    "usage: vtctx-reader syscalls --pid P --syscall NAMES [flags]\n"
    "\n"
    "Prints one event per entry of the selected syscalls by any thread of process P, with the\n"
    "context (trace/span, attributes named through P's OTEP 4719 process context) "
    "its\n" VTCTX_TLS_SYMBOL
    " points at. Attaches to the sys_enter tracepoint (BTF\n"
    "or raw; tracefs not needed). Prints 'vtctx-reader: attached' on stderr once live. SIGINT,\n"
    "SIGTERM, SIGHUP, SIGPIPE, --duration, the target's exit or exec, or a closed stdout (e.g. |\n"
    "head -1) drain the ring buffer, print a summary line on stderr and exit 0. A syscall the\n"
    "kernel restarts (interrupted by a signal or a ptrace stop) can be reported twice.\n"
    "\n",
    ""};

namespace {

class SyscallsCommand final : public SkeletonCommand<syscalls_bpf, syscalls_bpf__destroy> {
 public:
  explicit SyscallsCommand(const SyscallsOptions& options) : options_(options) {}

  Wording wording() const override {
    return {"events", "event", "ring buffer full; try a larger --ringbuf-mb"};
  }

  absl::Status Open(const BpfTarget& target) override {
    const uint32_t ring_bytes = options_.run.ringbuf_mb << 20;
    if (absl::Status s = OpenCommon(syscalls_bpf__open, target, options_.run.bpf_floor, ring_bytes);
        !s.ok()) {
      return s;
    }
    for (int nr : options_.syscalls) skel_->rodata->syscall_mask[nr / 64] |= 1ull << (nr % 64);
    // Prefer the BTF tracepoint (direct, cheaper argument access); fall back to the raw one when
    // the kernel cannot load tracing programs.
    use_btf_ = !options_.raw_tp && libbpf_probe_bpf_prog_type(BPF_PROG_TYPE_TRACING, nullptr) == 1;
    bpf_program__set_autoload(skel_->progs.vtctx_sys_enter_btf, use_btf_);
    bpf_program__set_autoload(skel_->progs.vtctx_sys_enter_raw, !use_btf_);
    return absl::OkStatus();
  }

  absl::Status Attach() override {
    if (int err = syscalls_bpf__attach(skel_.get()); err != 0) {
      return absl::InternalError(absl::StrCat("attaching to sys_enter: ", strerror(-err)));
    }
    return absl::OkStatus();
  }

  std::string AttachDetail() const override {
    return absl::StrCat("attached to sys_enter as ", use_btf_ ? "tp_btf" : "raw_tp");
  }

  void Detach() override { syscalls_bpf__detach(skel_.get()); }

  int program_fd() const override {
    return bpf_program__fd(use_btf_ ? skel_->progs.vtctx_sys_enter_btf
                                    : skel_->progs.vtctx_sys_enter_raw);
  }

  uint64_t Dropped() const override { return Counter(VTCTX_SC_DROPPED); }

  void OnEvent(std::span<const uint8_t> record, TargetContext& context) override {
    if (record.size() < sizeof(vtctx_syscall_event)) return;  // cannot happen: whole events
    const auto* e = reinterpret_cast<const vtctx_syscall_event*>(record.data());
    const size_t attrs = std::min<size_t>(e->ctx.attrs_len, record.size() - sizeof *e);
    received_++;
    Print(*e, record.subspan(sizeof *e, attrs), context);
  }

  RunCounts Report(const RunEnd&) override {
    RunCounts counts{received_, Counter(VTCTX_SC_MATCHED), Counter(VTCTX_SC_DROPPED), ""};
    counts.with_context = with_context_;
    const uint64_t submitted = counts.matched - counts.dropped;
    if (received_ != submitted) {
      counts.extra = absl::StrFormat(" undelivered=%d", submitted - received_);
    }
    return counts;
  }

 private:
  uint64_t Counter(uint32_t which) const {
    return SumPerCpu(bpf_map__fd(skel_->maps.counters), which);
  }

  // One line per event; everything printed goes through `line_`.
  void Print(const vtctx_syscall_event& e, std::span<const uint8_t> attrs, TargetContext& context) {
    const ContextView ctx{e.ctx.status, e.ctx.record, e.ctx.header, attrs};
    with_context_ += IsValidContext(ctx) ? 1 : 0;
    const absl::string_view name = SyscallName(e.nr);
    if (!attrs.empty()) context.OnEvent(attrs, e.ts_ns);
    const AttributeNames& names = context.names();
    line_.clear();
    if (options_.json) {
      absl::StrAppend(&line_, "{\"ts_ns\":", e.ts_ns, ",\"pid\":", e.tgid, ",\"tid\":", e.tid,
                      ",\"syscall\":\"", name, "\",\"nr\":", e.nr,
                      ",\"fd\":", static_cast<int64_t>(static_cast<int32_t>(e.args[0])),
                      ",\"count\":", e.args[2], ",\"args\":[");
      for (int i = 0; i < 6; ++i)
        absl::StrAppendFormat(&line_, "%s\"0x%x\"", i ? "," : "", e.args[i]);
      line_ += "],";
      AppendContextJson(line_, ctx, &names);
      line_ += "}\n";
    } else {
      absl::StrAppendFormat(&line_, "%d.%09d tid=%d %s(fd=%d, count=%d) ", e.ts_ns / 1000000000,
                            e.ts_ns % 1000000000, e.tid, name.empty() ? "?" : name,
                            static_cast<int32_t>(e.args[0]), e.args[2]);
      AppendContextText(line_, ctx, &names);
      line_ += '\n';
    }
    fwrite(line_.data(), 1, line_.size(), stdout);
  }

  const SyscallsOptions options_;
  bool use_btf_ = false;
  uint64_t received_ = 0;
  uint64_t with_context_ = 0;
  std::string line_;
};

}  // namespace

absl::Status RunSyscalls(const SyscallsOptions& options) {
  SyscallsCommand command(options);
  return RunBpfCommand(command, options.run);
}

}  // namespace vtctx::reader
