#include "hotspot/perfMapMerge.h"

#include <algorithm>

namespace vtctx::reader {
namespace {

// The ranges of `table` that overlap [start, start + size) (size 0: one byte). The table's ranges
// are disjoint (SymbolTable::Finish), so walking back from the first range at or after the end
// visits the overlapping ones and one more: merging two tables is O(n log n), whatever a perf map
// holds.
template <typename Visit>
void ForOverlapping(const SymbolTable& table, uint64_t start, uint64_t size, Visit visit) {
  const uint64_t end = start + std::max<uint64_t>(size, 1);
  for (size_t i = table.LowerBound(end); i-- > 0;) {
    const SymbolRange r = table.at(i);
    if (r.start + std::max<uint64_t>(r.size, 1) <= start) break;
    visit(r);
  }
}

absl::string_view FrameName(absl::string_view perf_map_name) {
  return perf_map_name == "Interpreter" ? absl::string_view(kInterpreted) : perf_map_name;
}

}  // namespace

SymbolTable MergePerfMaps(const SymbolTable& start, const SymbolTable& end) {
  SymbolTable merged;
  for (size_t i = 0; i < end.size(); ++i) {
    const SymbolRange e = end.at(i);
    bool replaced = false;
    ForOverlapping(start, e.start, e.size,
                   [&](const SymbolRange& s) { replaced = replaced || s.name != e.name; });
    merged.Add(e.start, e.size, replaced ? absl::string_view(kUnknownJit) : FrameName(e.name));
  }
  for (size_t i = 0; i < start.size(); ++i) {
    const SymbolRange s = start.at(i);
    bool overlapped = false;
    ForOverlapping(end, s.start, s.size, [&](const SymbolRange&) { overlapped = true; });
    if (!overlapped) merged.Add(s.start, s.size, FrameName(s.name));
  }
  merged.Finish();
  return merged;
}

}  // namespace vtctx::reader
