#include "hotspot/scopeDecoding.h"

#include "absl/strings/str_cat.h"

namespace vtctx::reader {
namespace {

// UNSIGNED5 (HotSpot's utilities/unsigned5.hpp): a byte b stands for the digit b - 1 (the byte 0
// is excluded); digits below kLow end a number, which has at most kMaxBytes bytes; the digits
// after the first weigh 64^i.
constexpr uint32_t kExcluded = 1;
constexpr uint32_t kLow = 191;  // 256 - 64 - kExcluded
constexpr int kLgHigh = 6;
constexpr int kMaxBytes = 5;

}  // namespace

std::optional<uint32_t> ScopeStream::ReadInt() {
  if (failed_) return std::nullopt;
  if (remaining_zeros_ > 0) {
    remaining_zeros_--;
    return 0;
  }
  auto fail = [&]() -> std::optional<uint32_t> {
    failed_ = true;
    return std::nullopt;
  };
  if (position_ >= bytes_.size()) return fail();
  if (bytes_[position_] == 0) {
    // A run of zeros: the byte 0, then how many (at least one).
    if (position_ + 1 >= bytes_.size() || bytes_[position_ + 1] == 0) return fail();
    remaining_zeros_ = bytes_[position_ + 1] - 1u;
    position_ += 2;
    return 0;
  }
  uint64_t sum = 0;
  for (int i = 0; i < kMaxBytes; ++i) {
    if (position_ + i >= bytes_.size()) return fail();
    const uint32_t b = bytes_[position_ + i];
    if (b < kExcluded) return fail();  // a zero byte inside a number
    sum += static_cast<uint64_t>(b - kExcluded) << (kLgHigh * i);
    if (b < kExcluded + kLow || i == kMaxBytes - 1) {
      if (sum > UINT32_MAX) return fail();
      position_ += i + 1;
      return static_cast<uint32_t>(sum);
    }
  }
  return fail();  // not reached
}

absl::StatusOr<std::vector<ScopeRecord>> DecodeScopeChain(std::span<const uint8_t> scopes,
                                                          uint32_t offset) {
  std::vector<ScopeRecord> chain;
  while (offset != 0) {
    if (chain.size() >= kMaxScopeDepth) {
      return absl::InvalidArgumentError(
          absl::StrCat("inlining deeper than ", kMaxScopeDepth, " scopes"));
    }
    if (offset >= scopes.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("scope offset ", offset, " outside the ", scopes.size(), "-byte scopes"));
    }
    ScopeStream stream(scopes, offset);
    const std::optional<uint32_t> sender = stream.ReadInt();
    const std::optional<uint32_t> method = stream.ReadInt();
    const std::optional<uint32_t> bci = stream.ReadInt();
    if (!sender || !method || !bci) {
      return absl::InvalidArgumentError(absl::StrCat("truncated scope record at ", offset));
    }
    if (*sender >= offset) {
      return absl::InvalidArgumentError(
          absl::StrCat("scope at ", offset, " names a caller at ", *sender, " (not before it)"));
    }
    // The bci is stored biased by InvocationEntryBci (-1), as an unsigned integer.
    chain.push_back({*sender, *method, static_cast<int32_t>(*bci - 1u)});
    offset = *sender;
  }
  return chain;
}

const PcDescEntry* FindPcDesc(std::span<const PcDescEntry> table, int64_t pc_offset,
                              bool approximate) {
  const PcDescEntry* found = nullptr;
  for (size_t i = 0; i < table.size(); ++i) {
    if (i > 0 && table[i].pc_offset < table[i - 1].pc_offset) return nullptr;  // unsorted
    if (found != nullptr) continue;
    if (approximate ? table[i].pc_offset >= pc_offset : table[i].pc_offset == pc_offset) {
      found = &table[i];
    }
  }
  return found;
}

}  // namespace vtctx::reader
