// `vtctx-reader syscalls`: one event per entry of the selected syscalls in the target process,
// tagged with the context the calling thread's `otel_thread_ctx_v1` pointed at on entry.
//
// Lifecycle (libbpf-tools): parse, preflight, resolve, open, set rodata, load, attach, consume
// until SIGINT/SIGTERM/--duration/target exit, drain, summary; one cleanup path (RAII, reverse
// order). Nothing is lost silently: ring-buffer overflows are counted in BPF, warned about while
// running and reported in the final summary line.
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "bpfSupport.h"
#include "cliArgs.h"
#include "commands.h"
#include "recordFormat.h"
#include "syscallTable.h"
#include "syscalls.h"
#include "syscalls.skel.h"
#include "targetContext.h"

namespace vtctx::reader {
namespace {

constexpr char kHelp[] =
    "usage: vtctx-reader syscalls --pid P --syscall NAMES [--format text|json] [--duration S]\n"
    "                             [--wait[=S]] [--ringbuf-mb N] [--bpf-stats] [--raw-tp]\n"
    "                             [--verbose]\n"
    "\n"
    "Prints one event per entry of the selected syscalls by any thread of process P, with the\n"
    "context (trace/span, attributes named through P's OTEP 4719 process context) "
    "its\n" VTCTX_TLS_SYMBOL
    " points at. Attaches to the sys_enter tracepoint (BTF\n"
    "or raw; tracefs not needed). Prints 'vtctx-reader: attached' on stderr once live. SIGINT,\n"
    "SIGTERM, SIGHUP, SIGPIPE, --duration, the target's exit or a closed stdout (e.g. | head -1)\n"
    "drain the ring buffer, print a summary line on stderr and exit 0. A syscall the kernel\n"
    "restarts (interrupted by a signal or a ptrace stop) can be reported twice.\n"
    "\n"
    "  --pid P          target process (all its threads)\n"
    "  --syscall NAMES  comma-separated syscall names or numbers (e.g. write,pwrite64), or 'all'\n"
    "  --format F       text (default) or json: one object per event with tid, syscall, nr, fd\n"
    "                   (arg 0), count (arg 2), args, record, valid, trace_id, span_id,\n"
    "                   trace_flags, context, ts_ns, and with attributes: attrs (by key index)\n"
    "                   and attributes ({name: value})\n"
    "  --duration S     stop after S seconds (default: until stopped as above)\n" VTCTX_WAIT_HELP
    "  --ringbuf-mb N   ring buffer size in MiB, a power of two (default 16)\n"
    "  --bpf-floor      benchmark aid: programs stop right after the pid filter (no output), to\n"
    "                   measure the fixed cost of a run with --bpf-stats\n"
    "  --bpf-stats      enable kernel BPF run-time statistics and report ns per program run\n"
    "  --raw-tp         attach to the raw tracepoint even when BTF tracepoints work\n"
    "  --verbose        libbpf diagnostics\n";

constexpr FlagSpec kFlags[] = {{"pid", true},        {"syscall", true},    {"format", true},
                               {"duration", true},   {"ringbuf-mb", true}, {"bpf-stats", false},
                               {"bpf-floor", false}, {"raw-tp", false},    {"verbose", false},
                               {"wait", true, true}};
constexpr absl::string_view kFormats[] = {"text", "json"};

struct SkelDeleter {
  void operator()(syscalls_bpf* skel) const { syscalls_bpf__destroy(skel); }
};
struct RingBufferDeleter {
  void operator()(ring_buffer* rb) const { ring_buffer__free(rb); }
};
struct FdCloser {
  void operator()(int* fd) const {
    close(*fd);
    delete fd;
  }
};

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

// Receives ring-buffer events and prints them; everything it prints goes through `line`.
struct Consumer {
  bool json = false;
  TargetContext* context = nullptr;
  uint64_t received = 0;
  std::string line;
  EventBatch batch;

  void Print(const vtctx_syscall_event& e, std::span<const uint8_t> attrs) {
    const ContextView ctx{e.ctx.status, e.ctx.record, e.ctx.header, attrs};
    const absl::string_view name = SyscallName(e.nr);
    if (!attrs.empty()) context->OnEvent(attrs, e.ts_ns);
    const AttributeNames& names = context->names();
    line.clear();
    if (json) {
      absl::StrAppend(&line, "{\"ts_ns\":", e.ts_ns, ",\"pid\":", e.tgid, ",\"tid\":", e.tid,
                      ",\"syscall\":\"", name, "\",\"nr\":", e.nr,
                      ",\"fd\":", static_cast<int64_t>(static_cast<int32_t>(e.args[0])),
                      ",\"count\":", e.args[2], ",\"args\":[");
      for (int i = 0; i < 6; ++i)
        absl::StrAppendFormat(&line, "%s\"0x%x\"", i ? "," : "", e.args[i]);
      line += "],";
      AppendContextJson(line, ctx, &names);
      line += "}\n";
    } else {
      absl::StrAppendFormat(&line, "%d.%09d tid=%d %s(fd=%d, count=%d) ", e.ts_ns / 1000000000,
                            e.ts_ns % 1000000000, e.tid, name.empty() ? "?" : name,
                            static_cast<int32_t>(e.args[0]), e.args[2]);
      AppendContextText(line, ctx, &names);
      line += '\n';
    }
    fwrite(line.data(), 1, line.size(), stdout);
  }

  static int OnEvent(void* self, void* data, size_t size) {
    auto* consumer = static_cast<Consumer*>(self);
    if (size < sizeof(vtctx_syscall_event)) return 0;  // cannot happen: BPF reserves whole events
    const auto* e = static_cast<const vtctx_syscall_event*>(data);
    const size_t attrs = std::min<size_t>(e->ctx.attrs_len, size - sizeof *e);
    consumer->received++;
    consumer->Print(*e, {static_cast<const uint8_t*>(data) + sizeof *e, attrs});
    return consumer->batch.Count();
  }
};

}  // namespace

absl::Status RunSyscalls(std::span<char* const> args) {
  absl::StatusOr<ParsedArgs> parsed = ParseArgs(args, kFlags);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(parsed.status().message(), " (see vtctx-reader syscalls --help)"));
  }
  if (parsed->Has("help")) {
    fputs(kHelp, stdout);
    return absl::OkStatus();
  }
  absl::StatusOr<pid_t> pid = parsed->Pid();
  if (!pid.ok()) return pid.status();
  if (!parsed->Has("syscall"))
    return absl::InvalidArgumentError("--syscall is required (e.g. write)");
  absl::StatusOr<std::vector<int>> syscalls = ParseSyscalls(parsed->Get("syscall"));
  if (!syscalls.ok()) return syscalls.status();
  absl::StatusOr<std::string> format = parsed->Choice("format", kFormats);
  if (!format.ok()) return format.status();
  absl::StatusOr<double> duration = parsed->Seconds("duration");
  if (!duration.ok()) return duration.status();
  absl::StatusOr<std::optional<double>> wait = parsed->OptionalSeconds("wait");
  if (!wait.ok()) return wait.status();
  absl::StatusOr<long> ringbuf_mb = parsed->Integer("ringbuf-mb", 16, 1, 1024);
  if (!ringbuf_mb.ok()) return ringbuf_mb.status();
  if ((*ringbuf_mb & (*ringbuf_mb - 1)) != 0) {
    return absl::InvalidArgumentError("--ringbuf-mb must be a power of two");
  }

  // From here on SIGINT/SIGTERM end the run cleanly (a stop before attach exits right after it).
  InstallStopHandlers();
  if (absl::Status s = CheckBpfAccess(); !s.ok()) return s;
  SetLibbpfVerbose(parsed->Has("verbose"));
  absl::StatusOr<TargetProcess> held = TargetProcess::Hold(*pid);
  if (!held.ok()) return held.status();
  absl::StatusOr<ModuleResolution> target = ResolveTarget(*held, *wait);
  if (!target.ok()) return target.status();

  // Open and configure.
  std::unique_ptr<syscalls_bpf, SkelDeleter> skel(syscalls_bpf__open());
  if (!skel) return absl::InternalError(absl::StrCat("opening BPF object: ", strerror(errno)));
  skel->rodata->target_tgid = static_cast<__u32>(*pid);
  skel->rodata->target_held_ns = held->held_ns();
  skel->rodata->vtctx_recipe = target->recipe;
  skel->rodata->floor_only = parsed->Has("bpf-floor");
  skel->rodata->wakeup_bytes = (static_cast<__u64>(*ringbuf_mb) << 20) / 4;
  for (int nr : *syscalls) skel->rodata->syscall_mask[nr / 64] |= 1ull << (nr % 64);
  if (int err = bpf_map__set_max_entries(skel->maps.events, static_cast<__u32>(*ringbuf_mb) << 20);
      err != 0) {
    return absl::InternalError(absl::StrCat("sizing the ring buffer: ", strerror(-err)));
  }
  // Prefer the BTF tracepoint (direct, cheaper argument access); fall back to the raw one when
  // the kernel cannot load tracing programs.
  const bool use_btf =
      !parsed->Has("raw-tp") && libbpf_probe_bpf_prog_type(BPF_PROG_TYPE_TRACING, nullptr) == 1;
  bpf_program__set_autoload(skel->progs.vtctx_sys_enter_btf, use_btf);
  bpf_program__set_autoload(skel->progs.vtctx_sys_enter_raw, !use_btf);
  bpf_program* prog = use_btf ? skel->progs.vtctx_sys_enter_btf : skel->progs.vtctx_sys_enter_raw;

  std::unique_ptr<int, FdCloser> stats_fd;
  if (parsed->Has("bpf-stats")) {
    absl::StatusOr<int> fd = EnableBpfRunTimeStats();
    if (!fd.ok()) return fd.status();
    stats_fd.reset(new int(*fd));
  }

  // Load and attach.
  if (int err = syscalls_bpf__load(skel.get()); err != 0) {
    return absl::InternalError(absl::StrCat("loading BPF programs: ", strerror(-err),
                                            " (rerun with --verbose for the verifier log)"));
  }
  if (int err = syscalls_bpf__attach(skel.get()); err != 0) {
    return absl::InternalError(absl::StrCat("attaching to sys_enter: ", strerror(-err)));
  }
  // Read after attaching: events from before this read are covered by it (processContextWatch.h).
  TargetContext context(*held, parsed->Has("verbose"));
  Consumer consumer;
  consumer.json = *format == "json";
  consumer.context = &context;
  std::unique_ptr<ring_buffer, RingBufferDeleter> rb(
      ring_buffer__new(bpf_map__fd(skel->maps.events), Consumer::OnEvent, &consumer, nullptr));
  if (!rb) return absl::InternalError(absl::StrCat("ring buffer: ", strerror(errno)));

  setvbuf(stdout, nullptr, _IOFBF, 1 << 20);
  if (parsed->Has("verbose")) {
    fprintf(stderr, "vtctx-reader: attached to sys_enter as %s\n", use_btf ? "tp_btf" : "raw_tp");
  }
  fprintf(stderr, "vtctx-reader: attached\n");
  fflush(stderr);

  // Consume.
  const int counters_fd = bpf_map__fd(skel->maps.counters);
  const double start = NowSeconds();
  double next_check = start + 1.0;
  uint64_t reported_drops = 0;
  std::string stop_reason;
  // The target's exit and stdout's closing end a wait at once.
  const pollfd wake[] = {{held->exit_fd(), POLLIN, 0}, kStdoutClosed};
  while (stop_reason.empty()) {
    if (absl::Status read = ReadEventBatch(rb.get(), consumer.batch, wake); !read.ok()) return read;
    if (absl::Status flushed = FlushStdout(); !flushed.ok()) return flushed;
    const double now = NowSeconds();
    // Closed stdout first: the SIGPIPE of a write to it also requests a stop. Every event of the
    // target is in the ring by the time it has exited (each was submitted by one of its threads,
    // before that thread could exit), and no event of a process reusing the pid is
    // (targetFilter.bpf.h): detach and drain is exact.
    if (StdoutClosed()) {
      stop_reason = "stdout closed";
    } else if (StopRequested()) {
      stop_reason = "signal";
    } else if (held->Exited()) {
      stop_reason = "target exited";
    } else if (*duration > 0 && now - start >= *duration) {
      stop_reason = "duration";
    }
    if (now >= next_check) {
      next_check = now + 1.0;
      const uint64_t drops = SumPerCpu(counters_fd, VTCTX_SC_DROPPED);
      if (drops > reported_drops) {
        fprintf(stderr,
                "vtctx-reader: warning: %llu events dropped so far (ring buffer full; "
                "try a larger --ringbuf-mb)\n",
                static_cast<unsigned long long>(drops));
        reported_drops = drops;
      }
    }
  }

  // Detach first so the counters are final, then drain what is already in the ring buffer.
  syscalls_bpf__detach(skel.get());
  DrainEvents(rb.get(), consumer.batch);
  // The summary goes out even when stdout failed; the failure is returned after it.
  const absl::Status flushed = FlushStdout();
  const uint64_t matched = SumPerCpu(counters_fd, VTCTX_SC_MATCHED);
  const uint64_t dropped = SumPerCpu(counters_fd, VTCTX_SC_DROPPED);
  const uint64_t submitted = matched - dropped;
  std::string summary =
      absl::StrFormat("vtctx-reader: summary: events=%d matched=%d dropped=%d (%s, %.1f s)",
                      consumer.received, matched, dropped, stop_reason, NowSeconds() - start);
  if (consumer.received != submitted) {
    absl::StrAppendFormat(&summary, " undelivered=%d", submitted - consumer.received);
  }
  summary += context.SummaryFields();
  const ProgramRunStats stats = ReadProgramRunStats(bpf_program__fd(prog));
  if (stats.run_cnt > 0) {
    // Runs include every thread's sys_enter (filtered out in a few instructions); the
    // per-event figure charges all of that time to the matched entries (an upper bound).
    absl::StrAppendFormat(
        &summary, " bpf_runs=%d bpf_run_time_ns=%d bpf_ns_per_run=%.1f", stats.run_cnt,
        stats.run_time_ns,
        static_cast<double>(stats.run_time_ns) / static_cast<double>(stats.run_cnt));
    if (matched > 0) {
      absl::StrAppendFormat(&summary, " bpf_ns_per_event_max=%.1f",
                            static_cast<double>(stats.run_time_ns) / static_cast<double>(matched));
    }
  }
  fprintf(stderr, "%s\n", summary.c_str());
  return flushed;
}

}  // namespace vtctx::reader
