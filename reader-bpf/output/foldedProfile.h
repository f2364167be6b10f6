// Stacks as flame graphs take them ("folded": root first, frames joined by ';'), each distinct
// frame text held once: a stack is a list of ids. A folded line repeats its frames' names, and a
// hostile target can make every sample's stack distinct with long names (127 frames of 1 KiB
// each: 127 KiB a sample, gigabytes a profile); as ids a stack costs 4 bytes a frame, and the
// texts, together, at most kMaxFrameTextBytes (past it a frame reads kFramesOverBudget).
#ifndef VTCTX_READER_FOLDED_PROFILE_H_
#define VTCTX_READER_FOLDED_PROFILE_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "absl/strings/string_view.h"

namespace vtctx::reader {

inline constexpr size_t kMaxFrameTextBytes = 16u << 20;
inline constexpr char kFramesOverBudget[] = "[frame names over budget]";

// Distinct texts, each once, numbered from 0 in the order they came; at most `max_bytes` of text
// (past it, Intern gives the id of kFramesOverBudget).
class TextPool {
 public:
  explicit TextPool(size_t max_bytes = kMaxFrameTextBytes) : max_bytes_(max_bytes) {}
  TextPool(const TextPool&) = delete;
  TextPool& operator=(const TextPool&) = delete;
  TextPool(TextPool&&) = default;
  TextPool& operator=(TextPool&&) = default;

  uint32_t Intern(absl::string_view text);
  const std::string& Text(uint32_t id) const { return texts_[id]; }
  size_t size() const { return texts_.size(); }
  bool over_budget() const { return over_budget_; }

 private:
  size_t max_bytes_;
  size_t bytes_ = 0;
  bool over_budget_ = false;
  std::deque<std::string> texts_;  // stable: ids_ keys view them
  std::unordered_map<std::string_view, uint32_t> ids_;
};

struct FoldedProfile {
  TextPool frames;
  std::map<std::vector<uint32_t>, uint64_t> stacks;  // frame ids, root first -> samples

  // "frame;frame;..." of a stack.
  std::string Line(const std::vector<uint32_t>& stack) const;
  // Every stack's line (tests; small profiles).
  std::map<std::string, uint64_t> Lines() const;
  // From folded lines (tests).
  static FoldedProfile FromLines(const std::map<std::string, uint64_t>& lines);
};

}  // namespace vtctx::reader

#endif  // VTCTX_READER_FOLDED_PROFILE_H_
