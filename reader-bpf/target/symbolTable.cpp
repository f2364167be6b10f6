#include "target/symbolTable.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"

namespace vtctx::reader {

void SymbolTable::Add(uint64_t start, uint64_t size, std::string name) {
  ranges_.push_back({start, size, std::move(name)});
}

void SymbolTable::Finish() {
  std::sort(ranges_.begin(), ranges_.end(),
            [](const SymbolRange& a, const SymbolRange& b) { return a.start < b.start; });
}

const SymbolRange* SymbolTable::Find(uint64_t address) const {
  auto it = std::upper_bound(ranges_.begin(), ranges_.end(), address,
                             [](uint64_t a, const SymbolRange& r) { return a < r.start; });
  if (it == ranges_.begin()) return nullptr;
  --it;
  if (it->size != 0 && address >= it->start + it->size) return nullptr;
  return &*it;
}

SymbolTable ParsePerfMap(absl::string_view text) {
  SymbolTable table;
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    // "START SIZE name with spaces"
    const size_t a = line.find(' ');
    if (a == absl::string_view::npos) continue;
    const size_t b = line.find(' ', a + 1);
    if (b == absl::string_view::npos) continue;
    uint64_t start = 0, size = 0;
    absl::string_view start_text = line.substr(0, a);
    absl::string_view size_text = line.substr(a + 1, b - a - 1);
    if (absl::StartsWith(start_text, "0x")) start_text.remove_prefix(2);
    if (absl::StartsWith(size_text, "0x")) size_text.remove_prefix(2);
    if (!absl::SimpleHexAtoi(start_text, &start) || !absl::SimpleHexAtoi(size_text, &size))
      continue;
    table.Add(start, size, std::string(line.substr(b + 1)));
  }
  table.Finish();
  return table;
}

}  // namespace vtctx::reader
