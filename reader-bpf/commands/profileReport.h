// The results of `profile`: samples aggregated by context (and stacks, and attribute values),
// either in the kernel or in user space from ring-buffer events, then printed as a table ranked
// by trace, a table ranked by attribute values (--group-by), or flame-graph folded stacks.
#ifndef VTCTX_READER_PROFILE_REPORT_H_
#define VTCTX_READER_PROFILE_REPORT_H_

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "commands/profile.h"
#include "commands/sampleRecord.h"
#include "output/foldedProfile.h"
#include "output/pprofWriter.h"
#include "output/symbolizer.h"
#include "target/attributeNames.h"

namespace vtctx::reader {

// One entry of the aggregation, with the attributes of its samples when aggregated by attribute.
struct SampleCount {
  vtctx_profile_key key;
  uint64_t samples;
  std::map<uint8_t, std::string> attrs;  // key index -> value (last entry wins)
  uint32_t tid = 0;                      // with SampleAggregate(by_thread); else 0
  SampleStacks stacks;                   // from events with stacks; else empty
};

// What the stacks of the samples were like, for the summary line.
struct StackCounts {
  uint64_t depth_limited = 0;   // samples with a stack at VTCTX_MAX_STACK_DEPTH frames
  uint64_t user_failed = 0;     // samples whose user stack could not be walked
  uint64_t unwind_stopped = 0;  // samples whose copied user stack unwound only part way
  uint64_t copy_cut = 0;        // samples unwound to the end of a copy cut at its size bound
};

// Samples received as events, aggregated by the kernel's key (profile.bpf.c), their stacks and
// attributes, and by thread when `by_thread`.
class SampleAggregate {
 public:
  explicit SampleAggregate(bool by_thread = false) : by_thread_(by_thread) {}
  void Add(const SampleRecord& sample);
  std::vector<SampleCount> Counts() const;
  const StackCounts& stack_counts() const { return stack_counts_; }

 private:
  struct Key {
    std::string profile_key;  // the bytes of vtctx_profile_key
    std::map<uint8_t, std::string> attrs;
    uint32_t tid;
    SampleStacks stacks;
    auto operator<=>(const Key&) const = default;
  };
  bool by_thread_;
  std::map<Key, uint64_t> counts_;
  StackCounts stack_counts_;
};

// The in-kernel aggregation (`counts`, a per-CPU hash map), summed over CPUs.
std::vector<SampleCount> ReadKernelCounts(int map_fd);

uint64_t TotalSamples(const std::vector<SampleCount>& counts);
// Of those, the samples that carried a context (a trace-id and a span-id).
uint64_t SamplesWithContext(const std::vector<SampleCount>& counts);

// What the printed tables say about the run.
struct ProfileRun {
  pid_t pid;
  long hz;
  double seconds;
};

// Traces ranked by CPU time (samples / hz), with their number of spans.
void PrintTraceTable(const std::vector<SampleCount>& counts, const ProfileRun& run);
// Combinations of the `group` attributes' values ranked by CPU time, with their number of traces.
void PrintGroupedTable(const std::vector<SampleCount>& counts,
                       const std::vector<std::string>& group, const AttributeNames& names,
                       const ProfileRun& run);
// Only the entries of `traces` (trace ids in hex; all when empty).
std::vector<SampleCount> KeepTraces(std::vector<SampleCount> counts,
                                    const std::vector<std::string>& traces);
// Flame-graph stacks: "[attribute frames;]trace/span frames;user frames;kernel frames" -> count,
// as frame ids (foldedProfile.h). Root first; a stack at the depth limit starts with
// "[truncated]", a user stack that could not be walked is "[no user stack]".
FoldedProfile FoldedStacks(const std::vector<SampleCount>& counts, FrameNamer& symbols,
                           const std::vector<std::string>& attr_frames,
                           const AttributeNames& names);
// One line a stack: "frame;frame;... count".
void PrintFolded(const FoldedProfile& folded);
// pprof samples: user and kernel frames; labels trace_id, span_id (when the sample has a
// context), the named attributes, and the number thread.id. The same markers as FoldedStacks, as
// outermost frames. The profile's period and times are the caller's to set.
PprofProfile PprofSamples(const std::vector<SampleCount>& counts, FrameNamer& symbols,
                          const AttributeNames& names);

// A requested attribute the key map does not name can only show as unset: says so once on stderr.
void WarnUnknownNames(const std::vector<std::string>& requested, const AttributeNames& names);

}  // namespace vtctx::reader

#endif  // VTCTX_READER_PROFILE_REPORT_H_
