#include "output/foldedProfile.h"

#include "absl/strings/str_split.h"

namespace vtctx::reader {

uint32_t TextPool::Intern(absl::string_view text) {
  const std::string_view key(text.data(), text.size());
  if (auto it = ids_.find(key); it != ids_.end()) return it->second;
  // A text's cost: its bytes, its string and its index entry.
  constexpr size_t kOverhead = sizeof(std::string) + 48;
  if (bytes_ + text.size() + kOverhead > max_bytes_ && text != kFramesOverBudget) {
    over_budget_ = true;
    return Intern(kFramesOverBudget);
  }
  bytes_ += text.size() + kOverhead;
  const auto id = static_cast<uint32_t>(texts_.size());
  texts_.emplace_back(text);
  ids_.emplace(texts_.back(), id);
  return id;
}

std::string FoldedProfile::Line(const std::vector<uint32_t>& stack) const {
  std::string line;
  for (size_t i = 0; i < stack.size(); ++i) {
    if (i > 0) line += ';';
    line += frames.Text(stack[i]);
  }
  return line;
}

std::map<std::string, uint64_t> FoldedProfile::Lines() const {
  std::map<std::string, uint64_t> out;
  for (const auto& [stack, n] : stacks) out[Line(stack)] += n;
  return out;
}

FoldedProfile FoldedProfile::FromLines(const std::map<std::string, uint64_t>& lines) {
  FoldedProfile out;
  for (const auto& [line, n] : lines) {
    std::vector<uint32_t> stack;
    for (absl::string_view frame : absl::StrSplit(line, ';')) {
      stack.push_back(out.frames.Intern(frame));
    }
    out.stacks[stack] += n;
  }
  return out;
}

}  // namespace vtctx::reader
