#include "commands/profileReport.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "target/recordFormat.h"

namespace vtctx::reader {
namespace {

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
  return key;
}

// The context an aggregation key keeps (ids, status, valid), for the id formatters.
ContextView KeyContext(const vtctx_profile_key& k) {
  ContextView ctx;
  ctx.status = k.status;
  ctx.header.valid = k.valid;
  std::memcpy(ctx.header.trace_id, k.trace_id, sizeof k.trace_id);
  std::memcpy(ctx.header.span_id, k.span_id, sizeof k.span_id);
  return ctx;
}

std::string KeyTrace(const vtctx_profile_key& k) { return TraceIdHex(KeyContext(k)); }
std::string KeySpan(const vtctx_profile_key& k) { return SpanIdHex(KeyContext(k)); }

// A row of a ranked table: its samples and the distinct values of its count column (the spans of
// a trace, the traces of a group).
struct RankedRow {
  uint64_t samples = 0;
  std::set<std::string> distinct;
};

// `title` then the rows by label ("" = samples without a usable context, shown unranked as
// "(no context)") in decreasing CPU time.
void PrintRanked(std::string title, absl::string_view count_column, absl::string_view label_column,
                 const std::map<std::string, RankedRow>& rows, uint64_t total, long hz) {
  std::vector<std::pair<std::string, RankedRow>> ranked(rows.begin(), rows.end());
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    return a.second.samples > b.second.samples;
  });
  std::string out = std::move(title);
  absl::StrAppendFormat(&out, "%-5s %8s %10s %7s %6s  %s\n", "RANK", "SAMPLES", "CPU_MS", "SHARE",
                        count_column, label_column);
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
                            share, row.distinct.size(), label);
    }
  }
  fwrite(out.data(), 1, out.size(), stdout);
}

// "name=value" of attribute `name` among a sample's attributes, the value written by `append`
// (AppendJsonString, AppendSafeText), or "name=(unset)".
std::string NameValue(const std::vector<NamedAttribute>& attrs, const std::string& name,
                      void (*append)(std::string&, absl::string_view)) {
  std::string out;
  AppendSafeText(out, name);
  out += '=';
  const auto it = std::find_if(attrs.begin(), attrs.end(),
                               [&](const NamedAttribute& a) { return a.label == name; });
  if (it == attrs.end()) {
    out += "(unset)";
  } else {
    append(out, it->value);
  }
  return out;
}

// A folded frame "name=value" (or "name=(unset)"): no ';' (the frame separator), no control
// characters, spaces or invalid UTF-8 ('_' instead).
std::string FoldedAttributeFrame(const std::vector<NamedAttribute>& attrs,
                                 const std::string& name) {
  std::string out = NameValue(attrs, name, AppendSafeText);
  std::replace(out.begin(), out.end(), ';', '_');
  return out;
}

// Marks the outermost end of a stack that is not whole ("" when it is).
const char* StackMarker(const SampleStacks& stacks) {
  if (stacks.depth_limited || stacks.copy_cut) return "[truncated]";
  if (stacks.user_error != 0) return "[no user stack]";
  return "";
}

// The frames of one aggregation entry, innermost first: kernel frames, then the user frames below
// them (the kernel ran on behalf of the innermost user frame).
std::vector<Frame> StackFrames(const SampleCount& c, FrameNamer& symbols) {
  std::vector<Frame> frames;
  for (uint64_t ip : c.stacks.kernel) frames.push_back(symbols.KernelFrame(ip));
  for (size_t i = 0; i < c.stacks.user.size(); ++i) {
    if (i == 0 && c.stacks.innermost_own_code) {
      frames.push_back(symbols.UserFrame(c.stacks.user[0], /*return_address=*/false));
      continue;
    }
    const InterpretedSlots slots =
        i < c.stacks.interpreted.size() ? c.stacks.interpreted[i] : InterpretedSlots{};
    for (Frame& f : symbols.UserFrames(c.stacks.user[i], /*return_address=*/i != 0, slots)) {
      frames.push_back(std::move(f));
    }
  }
  return frames;
}

// The folded stack of one aggregation entry, root first, its frames interned in `pool`.
std::vector<uint32_t> FoldedStack(const SampleCount& c, FrameNamer& symbols,
                                  const std::vector<std::string>& attr_frames,
                                  const AttributeNames& names, TextPool& pool) {
  const std::string trace = KeyTrace(c.key);
  const std::string span = KeySpan(c.key);
  std::vector<uint32_t> stack;
  if (!attr_frames.empty()) {
    const std::vector<NamedAttribute> named = NameAttributes(c.attrs, names);
    for (const std::string& name : attr_frames) {
      stack.push_back(pool.Intern(FoldedAttributeFrame(named, name)));
    }
  }
  if (trace.empty()) {
    stack.push_back(pool.Intern("no_context"));
  } else {
    stack.push_back(pool.Intern(absl::StrCat("trace_", trace)));
    stack.push_back(pool.Intern(absl::StrCat("span_", span.empty() ? "none" : span)));
  }
  // Root first: user frames outermost..innermost, then kernel frames outermost..innermost.
  if (const char* marker = StackMarker(c.stacks); *marker != 0)
    stack.push_back(pool.Intern(marker));
  const std::vector<Frame> frames = StackFrames(c, symbols);
  for (size_t i = frames.size(); i-- > 0;) stack.push_back(pool.Intern(frames[i].name));
  return stack;
}

}  // namespace

void SampleAggregate::Add(const SampleRecord& sample) {
  const vtctx_profile_key key = KeyOf(*sample.event);
  if (sample.stacks.depth_limited) stack_counts_.depth_limited++;
  if (sample.stacks.user_error != 0) stack_counts_.user_failed++;
  if (sample.stacks.unwind_stopped) stack_counts_.unwind_stopped++;
  if (sample.stacks.copy_cut) stack_counts_.copy_cut++;
  counts_[{std::string(reinterpret_cast<const char*>(&key), sizeof key), DecodeAttrs(sample.attrs),
           by_thread_ ? sample.event->tid : 0, sample.stacks}]++;
}

std::vector<SampleCount> SampleAggregate::Counts() const {
  std::vector<SampleCount> out;
  for (const auto& [k, n] : counts_) {
    SampleCount c{{}, n, k.attrs, k.tid, k.stacks};
    std::memcpy(&c.key, k.profile_key.data(), sizeof c.key);
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<SampleCount> ReadKernelCounts(int map_fd) {
  std::vector<SampleCount> out;
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
      out.push_back({next, sum, {}, 0, {}});
    }
    key = next;
    prev = &key;
  }
  return out;
}

uint64_t TotalSamples(const std::vector<SampleCount>& counts) {
  uint64_t total = 0;
  for (const SampleCount& c : counts) total += c.samples;
  return total;
}

uint64_t SamplesWithContext(const std::vector<SampleCount>& counts) {
  uint64_t total = 0;
  for (const SampleCount& c : counts) total += IsValidContext(KeyContext(c.key)) ? c.samples : 0;
  return total;
}

void PrintTraceTable(const std::vector<SampleCount>& counts, const ProfileRun& run) {
  std::map<std::string, RankedRow> rows;
  for (const SampleCount& c : counts) {
    RankedRow& row = rows[KeyTrace(c.key)];
    row.samples += c.samples;
    if (std::string span = KeySpan(c.key); !span.empty()) row.distinct.insert(span);
  }
  const uint64_t total = TotalSamples(counts);
  PrintRanked(absl::StrFormat("pid %d: %d samples at %d Hz in %.1f s\n", run.pid, total, run.hz,
                              run.seconds),
              "SPANS", "TRACE_ID", rows, total, run.hz);
}

void PrintGroupedTable(const std::vector<SampleCount>& counts,
                       const std::vector<std::string>& group, const AttributeNames& names,
                       const ProfileRun& run) {
  std::map<std::string, RankedRow> rows;
  for (const SampleCount& c : counts) {
    const std::string trace = KeyTrace(c.key);
    const bool usable = c.key.status == VTCTX_CTX_OK && c.key.valid == VTCTX_RECORD_VALID;
    std::string label;
    if (usable) {
      const std::vector<NamedAttribute> named = NameAttributes(c.attrs, names);
      std::vector<std::string> cells;
      for (const std::string& g : group) cells.push_back(NameValue(named, g, AppendJsonString));
      label = absl::StrJoin(cells, " ");
    }
    RankedRow& row = rows[label];
    row.samples += c.samples;
    if (!trace.empty()) row.distinct.insert(trace);
  }
  const uint64_t total = TotalSamples(counts);
  // The names as given (often copied from the target's key map): shown as the rows show them.
  std::string grouped_by;
  for (const std::string& g : group) {
    if (!grouped_by.empty()) grouped_by += ',';
    AppendSafeText(grouped_by, g);
  }
  PrintRanked(absl::StrFormat("pid %d: %d samples at %d Hz in %.1f s, grouped by %s\n", run.pid,
                              total, run.hz, run.seconds, grouped_by),
              "TRACES", "GROUP", rows, total, run.hz);
}

std::vector<SampleCount> KeepTraces(std::vector<SampleCount> counts,
                                    const std::vector<std::string>& traces) {
  if (traces.empty()) return counts;
  std::erase_if(counts, [&](const SampleCount& c) {
    return std::find(traces.begin(), traces.end(), KeyTrace(c.key)) == traces.end();
  });
  return counts;
}

FoldedProfile FoldedStacks(const std::vector<SampleCount>& counts, FrameNamer& symbols,
                           const std::vector<std::string>& attr_frames,
                           const AttributeNames& names) {
  FoldedProfile folded;
  for (const SampleCount& c : counts) {
    folded.stacks[FoldedStack(c, symbols, attr_frames, names, folded.frames)] += c.samples;
  }
  return folded;
}

void PrintFolded(const FoldedProfile& folded) {
  // Line by line: the whole text of a large profile is never held at once.
  std::string line;
  for (const auto& [stack, n] : folded.stacks) {
    line = folded.Line(stack);
    absl::StrAppend(&line, " ", n, "\n");
    fwrite(line.data(), 1, line.size(), stdout);
  }
}

PprofProfile PprofSamples(const std::vector<SampleCount>& counts, FrameNamer& symbols,
                          const AttributeNames& names) {
  PprofProfile out;
  for (const SampleCount& c : counts) {
    PprofSample s;
    for (const Frame& f : StackFrames(c, symbols)) s.frames.push_back(out.Intern(f));
    if (const char* marker = StackMarker(c.stacks); *marker != 0) {
      s.frames.push_back(out.Intern({marker, "", 0}));
    }
    if (s.frames.empty()) s.frames.push_back(out.Intern({"[no stack]", "", 0}));
    if (const std::string trace = KeyTrace(c.key); !trace.empty()) {
      s.labels.emplace_back("trace_id", trace);
      if (const std::string span = KeySpan(c.key); !span.empty())
        s.labels.emplace_back("span_id", span);
    }
    for (const NamedAttribute& a : NameAttributes(c.attrs, names)) {
      s.labels.emplace_back(a.label, a.value);
    }
    s.number_labels.emplace_back("thread.id", c.tid);
    s.count = static_cast<int64_t>(c.samples);
    out.samples.push_back(std::move(s));
  }
  return out;
}

void WarnUnknownNames(const std::vector<std::string>& requested, const AttributeNames& names) {
  for (const std::string& name : requested) {
    if (name == "trace" || (!name.empty() && name[0] == '#')) continue;
    const auto& known = names.names();
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    fprintf(stderr, "vtctx-reader: warning: attribute '%s' is not in the target's key map%s\n",
            name.c_str(), known.empty() ? " (no key map)" : "");
  }
}

}  // namespace vtctx::reader
