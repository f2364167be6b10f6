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

#include "attributeNames.h"
#include "profile.h"
#include "symbolizer.h"

namespace vtctx::reader {

// One entry of the aggregation, with the attributes of its samples when aggregated by attribute.
struct SampleCount {
  vtctx_profile_key key;
  uint64_t samples;
  std::map<uint8_t, std::string> attrs;  // key index -> value (last entry wins)
};

// Samples received as events, aggregated by the kernel's key (profile.bpf.c) and their attributes.
class SampleAggregate {
 public:
  void Add(const vtctx_sample_event& event, std::span<const uint8_t> attrs);
  std::vector<SampleCount> Counts() const;

 private:
  std::map<std::pair<std::string, std::map<uint8_t, std::string>>, uint64_t> counts_;
};

// The in-kernel aggregation (`counts`, a per-CPU hash map), summed over CPUs.
std::vector<SampleCount> ReadKernelCounts(int map_fd);

uint64_t TotalSamples(const std::vector<SampleCount>& counts);

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
// Flame-graph lines: [attribute frames;]trace/span frames;user frames;kernel frames count.
void PrintFolded(const std::vector<SampleCount>& counts, int stacks_fd, Symbolizer& symbols,
                 const std::vector<std::string>& attr_frames, const AttributeNames& names);

// A requested attribute the key map does not name can only show as unset: says so once on stderr.
void WarnUnknownNames(const std::vector<std::string>& requested, const AttributeNames& names);

}  // namespace vtctx::reader

#endif  // VTCTX_READER_PROFILE_REPORT_H_
