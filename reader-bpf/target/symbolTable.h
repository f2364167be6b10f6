// Sorted address ranges with names, and the perf map text format ("START SIZE name" per line)
// that HotSpot's Compiler.perfmap and other JITs write: what names anonymous executable code.
//
// A perf map is the target's text (its JIT writes it into its own /tmp), so the table is compact
// and bounded: names live in one buffer (24 bytes a range besides the name), a map yields at most
// kMaxPerfMapEntries ranges, and Finish() makes the ranges disjoint in one sorted pass (each ends
// where the next begins, as Find() reads them anyway): whatever a map holds, work on the table
// is O(n log n).
#ifndef VTCTX_READER_SYMBOL_TABLE_H_
#define VTCTX_READER_SYMBOL_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace vtctx::reader {

// The frame name of anonymous executable code (JIT code) nothing names.
inline constexpr char kUnknownJit[] = "[unknown jit]";
// HotSpot's template interpreter (its perf-map name is "Interpreter"): which Java method runs is
// not known from the address.
inline constexpr char kInterpreted[] = "[interpreted]";

// A perf map read from a target: at most this many bytes (a JVM with 150k code blobs writes
// ~15 MB; Temurin 25 after a warm-up of 12k blobs, 0.8 MB) and ranges.
inline constexpr size_t kMaxPerfMapBytes = 16u << 20;
inline constexpr size_t kMaxPerfMapEntries = 256u << 10;

struct SymbolRange {
  uint64_t start = 0;
  uint64_t size = 0;       // 0: unknown size (extends to the next symbol)
  absl::string_view name;  // valid while the table lives
};

// Sorted ranges; Find returns nullopt when no symbol covers `address`.
class SymbolTable {
 public:
  void Add(uint64_t start, uint64_t size, absl::string_view name);
  // Sorts (stable: of ranges that start at one address, the last added is kept), then ends every
  // range at the next one's start. Call once after the last Add.
  void Finish();
  std::optional<SymbolRange> Find(uint64_t address) const;
  bool empty() const { return entries_.empty(); }
  size_t size() const { return entries_.size(); }
  SymbolRange at(size_t i) const;  // in address order after Finish()
  // Index of the first range whose start is not below `address` (size() if none).
  size_t LowerBound(uint64_t address) const;
  // Bytes the table holds (ranges and names).
  size_t bytes() const { return entries_.capacity() * sizeof(Entry) + names_.capacity(); }
  // Ranges a bound left out (ParsePerfMap).
  size_t dropped() const { return dropped_; }

 private:
  friend SymbolTable ParsePerfMap(absl::string_view text, size_t max_entries);
  struct Entry {
    uint64_t start;
    uint64_t size;
    uint32_t name_offset;
    uint32_t name_size;
  };
  std::vector<Entry> entries_;
  std::string names_;
  size_t dropped_ = 0;
};

// Parses perf map text ("START SIZE name" per line, hex, with or without 0x); lines past
// `max_entries` ranges are counted in dropped().
SymbolTable ParsePerfMap(absl::string_view text, size_t max_entries = kMaxPerfMapEntries);

}  // namespace vtctx::reader

#endif  // VTCTX_READER_SYMBOL_TABLE_H_
