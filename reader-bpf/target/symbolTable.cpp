#include "target/symbolTable.h"

#include <algorithm>
#include <limits>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"

namespace vtctx::reader {

void SymbolTable::Add(uint64_t start, uint64_t size, absl::string_view name) {
  // Names past 4 GiB of them cannot be indexed: never reached (perf maps, symbol tables and
  // kallsyms are bounded far below).
  if (names_.size() + name.size() > std::numeric_limits<uint32_t>::max()) {
    dropped_++;
    return;
  }
  entries_.push_back(
      {start, size, static_cast<uint32_t>(names_.size()), static_cast<uint32_t>(name.size())});
  names_.append(name.data(), name.size());
}

void SymbolTable::Finish() {
  std::stable_sort(entries_.begin(), entries_.end(),
                   [](const Entry& a, const Entry& b) { return a.start < b.start; });
  // One pass: of ranges with one start the last added stays; a range ends where the next starts.
  size_t kept = 0;
  for (size_t i = 0; i < entries_.size(); ++i) {
    if (i + 1 < entries_.size() && entries_[i + 1].start == entries_[i].start) continue;
    entries_[kept++] = entries_[i];
  }
  entries_.resize(kept);
  for (size_t i = 0; i + 1 < entries_.size(); ++i) {
    Entry& e = entries_[i];
    const uint64_t room = entries_[i + 1].start - e.start;
    if (e.size > room) e.size = room;
  }
  entries_.shrink_to_fit();
  names_.shrink_to_fit();
}

SymbolRange SymbolTable::at(size_t i) const {
  const Entry& e = entries_[i];
  return {e.start, e.size, absl::string_view(names_).substr(e.name_offset, e.name_size)};
}

size_t SymbolTable::LowerBound(uint64_t address) const {
  return static_cast<size_t>(
      std::lower_bound(entries_.begin(), entries_.end(), address,
                       [](const Entry& e, uint64_t a) { return e.start < a; }) -
      entries_.begin());
}

std::optional<SymbolRange> SymbolTable::Find(uint64_t address) const {
  auto it = std::upper_bound(entries_.begin(), entries_.end(), address,
                             [](uint64_t a, const Entry& e) { return a < e.start; });
  if (it == entries_.begin()) return std::nullopt;
  --it;
  if (it->size != 0 && address - it->start >= it->size) return std::nullopt;
  return at(static_cast<size_t>(it - entries_.begin()));
}

SymbolTable ParsePerfMap(absl::string_view text, size_t max_entries) {
  SymbolTable table;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    absl::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == absl::string_view::npos ? text.size() : nl + 1);
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
    if (!absl::SimpleHexAtoi(start_text, &start) || !absl::SimpleHexAtoi(size_text, &size)) {
      continue;
    }
    if (table.size() >= max_entries) {
      table.dropped_++;
      continue;
    }
    table.Add(start, size, line.substr(b + 1));
  }
  table.Finish();
  return table;
}

}  // namespace vtctx::reader
