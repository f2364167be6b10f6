// `vtctx-reader profile`: CPU sampling of the target with each sample tagged by the context of
// the interrupted thread. A cpu-clock perf event per CPU (pid -1, filtered by tgid in BPF, so
// threads created later are covered) fires at --hz; table ranks traces by CPU time, json prints
// each sample, folded prints flame-graph input with trace/span as the root frames.
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "bpfSupport.h"
#include "cliArgs.h"
#include "commands.h"
#include "profile.h"
#include "profile.skel.h"
#include "recordFormat.h"
#include "symbolizer.h"
#include "targetContext.h"

namespace vtctx::reader {
namespace {

constexpr char kHelp[] =
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
    "  --duration S     stop after S seconds\n" VTCTX_WAIT_HELP
    "  --format F       table (default): traces ranked by CPU time;\n"
    "                   json: one object per sample (tid, cpu, ts_ns, record, valid, trace_id,\n"
    "                   span_id, trace_flags, context, attrs, attributes);\n"
    "                   folded: 'trace_<id>;span_<id>;frames... count' lines for flame graphs\n"
    "                   (user stacks by frame pointers: run the JVM with "
    "-XX:+PreserveFramePointer;\n"
    "                   JIT frames are named from /tmp/perf-<pid>.map when present)\n"
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

constexpr FlagSpec kFlags[] = {{"pid", true},          {"hz", true},         {"duration", true},
                               {"format", true},       {"ringbuf-mb", true}, {"group-by", true},
                               {"folded-attrs", true}, {"bpf-stats", false}, {"bpf-floor", false},
                               {"verbose", false},     {"wait", true, true}};
constexpr absl::string_view kFormats[] = {"table", "json", "folded"};

struct SkelDeleter {
  void operator()(profile_bpf* skel) const { profile_bpf__destroy(skel); }
};
struct RingBufferDeleter {
  void operator()(ring_buffer* rb) const { ring_buffer__free(rb); }
};
struct LinkDeleter {
  void operator()(bpf_link* link) const { bpf_link__destroy(link); }  // also closes the perf fd
};
struct FdCloser {
  void operator()(int* fd) const {
    close(*fd);
    delete fd;
  }
};

// One entry of the aggregation (in-kernel, summed over CPUs; or in user space from events), with
// the attributes of its samples when aggregated by attribute.
struct Count {
  vtctx_profile_key key;
  uint64_t samples;
  std::map<uint8_t, std::string> attrs;  // key index -> value (last entry wins)
};

// The aggregation key of a sample, as profile.bpf.c builds it in the kernel.
vtctx_profile_key KeyOf(const vtctx_sample_event& e) {
  vtctx_profile_key key{};
  key.status = e.ctx.status;
  if (e.ctx.status == VTCTX_CTX_OK) {
    key.valid = e.ctx.header.valid;
    if (e.ctx.header.valid == VTCTX_RECORD_VALID) {
      std::memcpy(key.trace_id, e.ctx.header.trace_id, sizeof key.trace_id);
      std::memcpy(key.span_id, e.ctx.header.span_id, sizeof key.span_id);
      key.trace_flags = e.ctx.header.trace_flags;
    }
  }
  key.user_stack_id = e.user_stack_id;
  key.kernel_stack_id = e.kernel_stack_id;
  return key;
}

// Samples from the ring buffer: printed one per line (--format json), or aggregated by context,
// stacks and attributes (--group-by / --folded-attrs).
struct EventConsumer {
  bool print = false;
  TargetContext* context = nullptr;
  uint64_t received = 0;
  std::string line;
  std::map<std::pair<std::string, std::map<uint8_t, std::string>>, uint64_t> aggregated;
  EventBatch batch;

  static int OnEvent(void* self, void* data, size_t size) {
    auto* p = static_cast<EventConsumer*>(self);
    if (size < sizeof(vtctx_sample_event)) return 0;  // cannot happen: BPF reserves whole events
    const auto* e = static_cast<const vtctx_sample_event*>(data);
    const std::span<const uint8_t> attrs{reinterpret_cast<const uint8_t*>(e + 1),
                                         std::min<size_t>(e->ctx.attrs_len, size - sizeof *e)};
    p->received++;
    if (!attrs.empty()) p->context->OnEvent(attrs, e->ts_ns);
    if (!p->print) {
      const vtctx_profile_key key = KeyOf(*e);
      p->aggregated[{std::string(reinterpret_cast<const char*>(&key), sizeof key),
                     DecodeAttrs(attrs)}]++;
      return p->batch.Count();
    }
    const ContextView ctx{e->ctx.status, e->ctx.record, e->ctx.header, attrs};
    p->line.clear();
    absl::StrAppend(&p->line, "{\"ts_ns\":", e->ts_ns, ",\"pid\":", e->tgid, ",\"tid\":", e->tid,
                    ",\"cpu\":", e->cpu, ",");
    AppendContextJson(p->line, ctx, &p->context->names());
    p->line += "}\n";
    fwrite(p->line.data(), 1, p->line.size(), stdout);
    return p->batch.Count();
  }

  std::vector<Count> Counts() const {
    std::vector<Count> out;
    for (const auto& [k, n] : aggregated) {
      Count c{{}, n, k.second};
      std::memcpy(&c.key, k.first.data(), sizeof c.key);
      out.push_back(std::move(c));
    }
    return out;
  }
};

std::vector<Count> ReadCounts(int map_fd) {
  std::vector<Count> out;
  const int cpus = libbpf_num_possible_cpus();
  if (cpus <= 0) return out;
  std::vector<uint64_t> values(static_cast<size_t>(cpus));
  vtctx_profile_key key{};
  vtctx_profile_key next{};
  vtctx_profile_key* prev = nullptr;
  while (bpf_map_get_next_key(map_fd, prev, &next) == 0) {
    if (bpf_map_lookup_elem(map_fd, &next, values.data()) == 0) {
      uint64_t sum = 0;
      for (uint64_t v : values) sum += v;
      out.push_back({next, sum, {}});
    }
    key = next;
    prev = &key;
  }
  return out;
}

std::string KeyTrace(const vtctx_profile_key& k) {
  ContextView ctx;
  ctx.status = k.status;
  ctx.header.valid = k.valid;
  std::memcpy(ctx.header.trace_id, k.trace_id, sizeof k.trace_id);
  return TraceIdHex(ctx);
}

std::string KeySpan(const vtctx_profile_key& k) {
  ContextView ctx;
  ctx.status = k.status;
  ctx.header.valid = k.valid;
  std::memcpy(ctx.header.span_id, k.span_id, sizeof k.span_id);
  return SpanIdHex(ctx);
}

uint64_t TotalSamples(const std::vector<Count>& counts) {
  uint64_t total = 0;
  for (const Count& c : counts) total += c.samples;
  return total;
}

void PrintTable(const std::vector<Count>& counts, long hz, pid_t pid, double seconds) {
  struct TraceRow {
    uint64_t samples = 0;
    std::set<std::string> spans;
  };
  std::map<std::string, TraceRow> rows;
  for (const Count& c : counts) {
    TraceRow& row = rows[KeyTrace(c.key)];
    row.samples += c.samples;
    if (std::string span = KeySpan(c.key); !span.empty()) row.spans.insert(span);
  }
  std::vector<std::pair<std::string, TraceRow>> ranked(rows.begin(), rows.end());
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    return a.second.samples > b.second.samples;
  });
  const uint64_t total = TotalSamples(counts);
  std::string out =
      absl::StrFormat("pid %d: %d samples at %d Hz in %.1f s\n", pid, total, hz, seconds);
  absl::StrAppendFormat(&out, "%-5s %8s %10s %7s %6s  %s\n", "RANK", "SAMPLES", "CPU_MS", "SHARE",
                        "SPANS", "TRACE_ID");
  int rank = 0;
  for (const auto& [trace, row] : ranked) {
    const double cpu_ms = static_cast<double>(row.samples) * 1000.0 / static_cast<double>(hz);
    const double share =
        total > 0 ? 100.0 * static_cast<double>(row.samples) / static_cast<double>(total) : 0;
    if (trace.empty()) {
      absl::StrAppendFormat(&out, "%-5s %8d %10.1f %6.1f%% %6s  %s\n", "-", row.samples, cpu_ms,
                            share, "-", "(no context)");
    } else {
      absl::StrAppendFormat(&out, "%-5d %8d %10.1f %6.1f%% %6d  %s\n", ++rank, row.samples, cpu_ms,
                            share, row.spans.size(), trace);
    }
  }
  fwrite(out.data(), 1, out.size(), stdout);
}

// "name=value" of attribute `name` among a sample's attributes (value as a JSON string), or
// "name=(unset)".
std::string AttributeCell(const std::vector<NamedAttribute>& attrs, const std::string& name) {
  std::string out;
  for (const NamedAttribute& a : attrs) {
    if (a.label != name) continue;
    AppendSafeText(out, name);
    out += '=';
    AppendJsonString(out, a.value);
    return out;
  }
  AppendSafeText(out, name);
  out += "=(unset)";
  return out;
}

// Table ranked by the values of the `group` attributes (--group-by NAME,...).
void PrintGroupedTable(const std::vector<Count>& counts, const std::vector<std::string>& group,
                       const AttributeNames& names, long hz, pid_t pid, double seconds) {
  struct GroupRow {
    uint64_t samples = 0;
    std::set<std::string> traces;
  };
  std::map<std::string, GroupRow> rows;  // "" = samples without a usable context
  for (const Count& c : counts) {
    const std::string trace = KeyTrace(c.key);
    const bool usable = c.key.status == VTCTX_CTX_OK && c.key.valid == VTCTX_RECORD_VALID;
    std::string label;
    if (usable) {
      const std::vector<NamedAttribute> named = NameAttributes(c.attrs, names);
      std::vector<std::string> cells;
      for (const std::string& g : group) cells.push_back(AttributeCell(named, g));
      label = absl::StrJoin(cells, " ");
    }
    GroupRow& row = rows[label];
    row.samples += c.samples;
    if (!trace.empty()) row.traces.insert(trace);
  }
  std::vector<std::pair<std::string, GroupRow>> ranked(rows.begin(), rows.end());
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    return a.second.samples > b.second.samples;
  });
  const uint64_t total = TotalSamples(counts);
  std::string out = absl::StrFormat("pid %d: %d samples at %d Hz in %.1f s, grouped by %s\n", pid,
                                    total, hz, seconds, absl::StrJoin(group, ","));
  absl::StrAppendFormat(&out, "%-5s %8s %10s %7s %6s  %s\n", "RANK", "SAMPLES", "CPU_MS", "SHARE",
                        "TRACES", "GROUP");
  int rank = 0;
  for (const auto& [label, row] : ranked) {
    const double cpu_ms = static_cast<double>(row.samples) * 1000.0 / static_cast<double>(hz);
    const double share =
        total > 0 ? 100.0 * static_cast<double>(row.samples) / static_cast<double>(total) : 0;
    if (label.empty()) {
      absl::StrAppendFormat(&out, "%-5s %8d %10.1f %6.1f%% %6s  %s\n", "-", row.samples, cpu_ms,
                            share, "-", "(no context)");
    } else {
      absl::StrAppendFormat(&out, "%-5d %8d %10.1f %6.1f%% %6d  %s\n", ++rank, row.samples, cpu_ms,
                            share, row.traces.size(), label);
    }
  }
  fwrite(out.data(), 1, out.size(), stdout);
}

// Frames of stack `id` (innermost first), or a placeholder frame when the stack was lost.
std::vector<uint64_t> ReadStack(int stacks_fd, int32_t id) {
  std::vector<uint64_t> ips(VTCTX_MAX_STACK_DEPTH, 0);
  if (id < 0 || bpf_map_lookup_elem(stacks_fd, &id, ips.data()) != 0) return {};
  size_t n = 0;
  while (n < ips.size() && ips[n] != 0) ++n;
  ips.resize(n);
  return ips;
}

// A folded frame "name=value" (or "name=(unset)"): no ';' (the frame separator), no control
// characters, spaces or invalid UTF-8 ('_' instead).
std::string FoldedAttributeFrame(const std::vector<NamedAttribute>& attrs,
                                 const std::string& name) {
  std::string out;
  AppendSafeText(out, name);
  out += '=';
  const auto it = std::find_if(attrs.begin(), attrs.end(),
                               [&](const NamedAttribute& a) { return a.label == name; });
  if (it == attrs.end()) {
    out += "(unset)";
  } else {
    AppendSafeText(out, it->value);
  }
  std::replace(out.begin(), out.end(), ';', '_');
  return out;
}

// Flame-graph lines: [attribute frames;]trace/span frames;user frames;kernel frames count.
void PrintFolded(const std::vector<Count>& counts, int stacks_fd, Symbolizer& symbols,
                 const std::vector<std::string>& attr_frames, const AttributeNames& names) {
  std::map<std::string, uint64_t> folded;
  for (const Count& c : counts) {
    const std::string trace = KeyTrace(c.key);
    const std::string span = KeySpan(c.key);
    std::string line;
    if (!attr_frames.empty()) {
      const std::vector<NamedAttribute> named = NameAttributes(c.attrs, names);
      for (const std::string& name : attr_frames) {
        absl::StrAppend(&line, FoldedAttributeFrame(named, name), ";");
      }
    }
    line += trace.empty() ? std::string("no_context")
                          : absl::StrCat("trace_", trace, ";span_", span.empty() ? "none" : span);
    // Root first: user frames outermost..innermost, then kernel frames outermost..innermost.
    const std::vector<uint64_t> user = ReadStack(stacks_fd, c.key.user_stack_id);
    const std::vector<uint64_t> kernel = ReadStack(stacks_fd, c.key.kernel_stack_id);
    if (user.empty() && c.key.user_stack_id != -1 && c.key.user_stack_id != -14) {
      line += ";[stack lost]";
    }
    for (size_t i = user.size(); i-- > 0;) {
      absl::StrAppend(&line, ";", symbols.User(user[i], /*return_address=*/i != 0));
    }
    for (size_t i = kernel.size(); i-- > 0;) {
      absl::StrAppend(&line, ";", symbols.Kernel(kernel[i]));
    }
    folded[line] += c.samples;
  }
  std::string out;
  for (const auto& [stack, n] : folded) absl::StrAppend(&out, stack, " ", n, "\n");
  fwrite(out.data(), 1, out.size(), stdout);
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

// A requested attribute the key map does not name can only show as unset: say so once.
void WarnUnknownNames(const std::vector<std::string>& requested, const AttributeNames& names) {
  for (const std::string& name : requested) {
    if (name == "trace" || (!name.empty() && name[0] == '#')) continue;
    const auto& known = names.names();
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    fprintf(stderr, "vtctx-reader: warning: attribute '%s' is not in the target's key map%s\n",
            name.c_str(), known.empty() ? " (no key map)" : "");
  }
}

}  // namespace

absl::Status RunProfile(std::span<char* const> args) {
  absl::StatusOr<ParsedArgs> parsed = ParseArgs(args, kFlags);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(parsed.status().message(), " (see vtctx-reader profile --help)"));
  }
  if (parsed->Has("help")) {
    fputs(kHelp, stdout);
    return absl::OkStatus();
  }
  absl::StatusOr<pid_t> pid = parsed->Pid();
  if (!pid.ok()) return pid.status();
  absl::StatusOr<long> hz = parsed->Integer("hz", 99, 1, 100000);
  if (!hz.ok()) return hz.status();
  absl::StatusOr<double> duration = parsed->Seconds("duration");
  if (!duration.ok()) return duration.status();
  absl::StatusOr<std::optional<double>> wait = parsed->OptionalSeconds("wait");
  if (!wait.ok()) return wait.status();
  absl::StatusOr<std::string> format = parsed->Choice("format", kFormats);
  if (!format.ok()) return format.status();
  absl::StatusOr<long> ringbuf_mb = parsed->Integer("ringbuf-mb", 4, 1, 1024);
  if (!ringbuf_mb.ok()) return ringbuf_mb.status();
  if ((*ringbuf_mb & (*ringbuf_mb - 1)) != 0) {
    return absl::InvalidArgumentError("--ringbuf-mb must be a power of two");
  }
  absl::StatusOr<std::vector<std::string>> group_by = NameList(*parsed, "group-by");
  if (!group_by.ok()) return group_by.status();
  if (group_by->size() == 1 && group_by->front() == "trace") group_by->clear();
  if (!group_by->empty() && *format != "table") {
    return absl::InvalidArgumentError("--group-by applies to --format table");
  }
  if (std::find(group_by->begin(), group_by->end(), "trace") != group_by->end()) {
    return absl::InvalidArgumentError(
        "--group-by wants 'trace' or attribute names, not both (traces are counted per group)");
  }
  absl::StatusOr<std::vector<std::string>> folded_attrs = NameList(*parsed, "folded-attrs");
  if (!folded_attrs.ok()) return folded_attrs.status();
  if (!folded_attrs->empty() && *format != "folded") {
    return absl::InvalidArgumentError("--folded-attrs applies to --format folded");
  }

  // From here on SIGINT/SIGTERM end the run cleanly (a stop before attach exits right after it).
  InstallStopHandlers();
  if (absl::Status s = CheckBpfAccess(); !s.ok()) return s;
  SetLibbpfVerbose(parsed->Has("verbose"));
  absl::StatusOr<TargetProcess> held = TargetProcess::Hold(*pid);
  if (!held.ok()) return held.status();
  absl::StatusOr<ModuleResolution> target = ResolveTarget(*held, *wait);
  if (!target.ok()) return target.status();

  std::unique_ptr<profile_bpf, SkelDeleter> skel(profile_bpf__open());
  if (!skel) return absl::InternalError(absl::StrCat("opening BPF object: ", strerror(errno)));
  skel->rodata->target_tgid = static_cast<__u32>(*pid);
  skel->rodata->target_held_ns = held->held_ns();
  skel->rodata->vtctx_recipe = target->recipe;
  skel->rodata->floor_only = parsed->Has("bpf-floor");
  // Samples go through the ring buffer for json and whenever attributes matter (their values
  // cannot be part of the in-kernel aggregation key cheaply); else they are counted in the kernel.
  const bool print_events = *format == "json";
  const bool by_attribute = !group_by->empty() || !folded_attrs->empty();
  const bool events = print_events || by_attribute;
  skel->rodata->mode = events                ? VTCTX_PROFILE_EVENTS
                       : *format == "folded" ? VTCTX_PROFILE_STACKS
                                             : VTCTX_PROFILE_COUNTS;
  skel->rodata->event_stacks = events && *format == "folded";
  // Unused maps shrink to their minimum (one page of ring buffer, one stack slot).
  const __u32 ring_bytes = events ? static_cast<__u32>(*ringbuf_mb) << 20 : 4096;
  skel->rodata->wakeup_bytes = ring_bytes / 4;
  const __u32 stack_slots = *format == "folded" ? 16384 : 1;
  if (bpf_map__set_max_entries(skel->maps.events, ring_bytes) != 0 ||
      bpf_map__set_max_entries(skel->maps.stacks, stack_slots) != 0) {
    return absl::InternalError("sizing the BPF maps failed");
  }
  std::unique_ptr<int, FdCloser> stats_fd;
  if (parsed->Has("bpf-stats")) {
    absl::StatusOr<int> fd = EnableBpfRunTimeStats();
    if (!fd.ok()) return fd.status();
    stats_fd.reset(new int(*fd));
  }
  if (int err = profile_bpf__load(skel.get()); err != 0) {
    return absl::InternalError(absl::StrCat("loading BPF programs: ", strerror(-err),
                                            " (rerun with --verbose for the verifier log)"));
  }

  // One sampling event per online CPU.
  std::vector<std::unique_ptr<bpf_link, LinkDeleter>> links;
  const int cpus = libbpf_num_possible_cpus();
  for (int cpu = 0; cpu < cpus; ++cpu) {
    perf_event_attr attr{};
    attr.size = sizeof attr;
    attr.type = PERF_TYPE_SOFTWARE;
    attr.config = PERF_COUNT_SW_CPU_CLOCK;
    attr.freq = 1;
    attr.sample_freq = static_cast<__u64>(*hz);
    const int fd =
        static_cast<int>(syscall(__NR_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC));
    if (fd < 0) {
      if (errno == ENODEV) continue;  // offline CPU
      return absl::InternalError(
          absl::StrCat("perf_event_open on CPU ", cpu, ": ", strerror(errno)));
    }
    bpf_link* link = bpf_program__attach_perf_event(skel->progs.vtctx_sample, fd);
    if (link == nullptr) {
      const int err = errno;
      close(fd);
      return absl::InternalError(absl::StrCat("attaching to CPU ", cpu, ": ", strerror(err)));
    }
    links.emplace_back(link);
  }
  if (links.empty()) return absl::InternalError("no online CPU to sample");

  // Read after attaching: samples from before this read are covered by it
  // (processContextWatch.h).
  TargetContext context(*held, parsed->Has("verbose"));
  EventConsumer consumer;
  consumer.print = print_events;
  consumer.context = &context;
  std::unique_ptr<ring_buffer, RingBufferDeleter> rb(
      ring_buffer__new(bpf_map__fd(skel->maps.events), EventConsumer::OnEvent, &consumer, nullptr));
  if (!rb) return absl::InternalError(absl::StrCat("ring buffer: ", strerror(errno)));

  setvbuf(stdout, nullptr, _IOFBF, 1 << 20);
  fprintf(stderr, "vtctx-reader: attached\n");
  fflush(stderr);

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
      const uint64_t drops = SumPerCpu(counters_fd, VTCTX_PC_DROPPED);
      if (drops > reported_drops) {
        fprintf(stderr,
                "vtctx-reader: warning: %llu samples dropped so far (ring buffer or aggregation "
                "map full)\n",
                static_cast<unsigned long long>(drops));
        reported_drops = drops;
      }
    }
  }
  links.clear();  // stop sampling before draining
  DrainEvents(rb.get(), consumer.batch);
  const double seconds = NowSeconds() - start;

  uint64_t delivered = consumer.received;
  if (!print_events) {
    const std::vector<Count> counts =
        events ? consumer.Counts() : ReadCounts(bpf_map__fd(skel->maps.counts));
    if (!events) delivered = TotalSamples(counts);
    const AttributeNames& names = context.names();
    WarnUnknownNames(*group_by, names);
    WarnUnknownNames(*folded_attrs, names);
    if (*format == "folded") {
      Symbolizer symbols(*pid, held->dir());  // while the target (normally) still runs
      PrintFolded(counts, bpf_map__fd(skel->maps.stacks), symbols, *folded_attrs, names);
    } else if (!group_by->empty()) {
      PrintGroupedTable(counts, *group_by, names, *hz, *pid, seconds);
    } else {
      PrintTable(counts, *hz, *pid, seconds);
    }
  }
  // The summary goes out even when stdout failed; the failure is returned after it.
  const absl::Status flushed = FlushStdout();

  // Every sample of the target was delivered (counted, or sent and consumed above) or dropped.
  const uint64_t dropped = SumPerCpu(counters_fd, VTCTX_PC_DROPPED);
  const uint64_t taken = delivered + dropped;
  std::string summary =
      absl::StrFormat("vtctx-reader: summary: samples=%d matched=%d dropped=%d (%s, %.1f s)",
                      delivered, taken, dropped, stop_reason, seconds);
  if (const uint64_t lost = SumPerCpu(counters_fd, VTCTX_PC_STACK_LOST); lost > 0) {
    absl::StrAppendFormat(&summary, " stacks_lost=%d", lost);
  }
  summary += context.SummaryFields();
  const ProgramRunStats stats = ReadProgramRunStats(bpf_program__fd(skel->progs.vtctx_sample));
  if (stats.run_cnt > 0) {
    absl::StrAppendFormat(
        &summary, " bpf_runs=%d bpf_run_time_ns=%d bpf_ns_per_run=%.1f", stats.run_cnt,
        stats.run_time_ns,
        static_cast<double>(stats.run_time_ns) / static_cast<double>(stats.run_cnt));
    if (taken > 0) {
      absl::StrAppendFormat(&summary, " bpf_ns_per_sample_max=%.1f",
                            static_cast<double>(stats.run_time_ns) / static_cast<double>(taken));
    }
  }
  fprintf(stderr, "%s\n", summary.c_str());
  return flushed;
}

}  // namespace vtctx::reader
