// Sorted address ranges with names, and the perf map text format ("START SIZE name" per line)
// that HotSpot's Compiler.perfmap and other JITs write: what names anonymous executable code.
#ifndef VTCTX_READER_SYMBOL_TABLE_H_
#define VTCTX_READER_SYMBOL_TABLE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace vtctx::reader {

// The frame name of anonymous executable code (JIT code) nothing names.
inline constexpr char kUnknownJit[] = "[unknown jit]";
// HotSpot's template interpreter (its perf-map name is "Interpreter"): which Java method runs is
// not known from the address.
inline constexpr char kInterpreted[] = "[interpreted]";

struct SymbolRange {
  uint64_t start = 0;
  uint64_t size = 0;  // 0: unknown size (extends to the next symbol)
  std::string name;
};

// Sorted ranges; Find returns nullptr when no symbol covers `address`.
class SymbolTable {
 public:
  void Add(uint64_t start, uint64_t size, std::string name);
  void Finish();  // sorts; call once after the last Add
  const SymbolRange* Find(uint64_t address) const;
  bool empty() const { return ranges_.empty(); }
  const std::vector<SymbolRange>& ranges() const { return ranges_; }  // sorted after Finish()

 private:
  std::vector<SymbolRange> ranges_;
};

// Parses perf map text ("START SIZE name" per line, hex without 0x).
SymbolTable ParsePerfMap(absl::string_view text);

}  // namespace vtctx::reader

#endif  // VTCTX_READER_SYMBOL_TABLE_H_
