// The pure part of reading which Java methods a compiled HotSpot frame stands for: the PcDesc
// table of an nmethod (pc offset -> scope) and the chain of scope records in its scopes data
// (innermost inlined method first, each naming its caller), decoded from bytes copied out of the
// target (nmethodScopes.h reads them). The bytes are the target's: every read is bounded, every
// offset and count checked, and a chain must move strictly towards the stream's start (HotSpot
// writes a caller's scope before its callees'), so a malformed stream ends, refused, and never
// loops.
//
// The stream is HotSpot's CompressedReadStream: UNSIGNED5 integers (1 to 5 bytes; the byte 0 is
// never produced, JDK 21+) and, from JDK 25, runs of zeros written as the byte 0 then a count.
#ifndef VTCTX_READER_SCOPE_DECODING_H_
#define VTCTX_READER_SCOPE_DECODING_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "absl/status/statusor.h"

namespace vtctx::reader {

// Inlining deeper than this is refused (HotSpot's MaxInlineLevel is 15; C2 may go beyond for
// method handles, never near this).
inline constexpr size_t kMaxScopeDepth = 64;

// Reads HotSpot's compressed integers from `bytes` starting at `position`.
class ScopeStream {
 public:
  ScopeStream(std::span<const uint8_t> bytes, size_t position)
      : bytes_(bytes), position_(position) {}
  // The next integer; nullopt past the end or on a malformed encoding (then every later read
  // fails too).
  std::optional<uint32_t> ReadInt();
  size_t position() const { return position_; }

 private:
  std::span<const uint8_t> bytes_;
  size_t position_;
  uint32_t remaining_zeros_ = 0;
  bool failed_ = false;
};

// One scope record's header (ScopeDesc::decode_body): its caller's record (0: none, the
// outermost method), the nmethod metadata index of its Method* (1-based; 0: none) and the bci.
struct ScopeRecord {
  uint32_t sender_offset = 0;
  uint32_t method_index = 0;
  int32_t bci = 0;
};

// The records from the one at `offset` outwards: innermost first, the outermost last.
// InvalidArgument for an offset outside `scopes`, a truncated record, a sender offset that does
// not move towards the start, or a chain deeper than kMaxScopeDepth.
absl::StatusOr<std::vector<ScopeRecord>> DecodeScopeChain(std::span<const uint8_t> scopes,
                                                          uint32_t offset);

// One PcDesc: a pc offset from the nmethod's code begin and its innermost scope's offset in the
// scopes data (0: no scope recorded).
struct PcDescEntry {
  int32_t pc_offset = 0;
  int32_t scope_offset = 0;
};

// The PcDesc describing `pc_offset` in `table` (sorted by pc offset, as HotSpot writes it; an
// unsorted table gives nullptr): exact, the one at `pc_offset` itself (a return address);
// approximate, the first at or after it (a frame stopped between two PcDescs: the sampled pc).
const PcDescEntry* FindPcDesc(std::span<const PcDescEntry> table, int64_t pc_offset,
                              bool approximate);

}  // namespace vtctx::reader

#endif  // VTCTX_READER_SCOPE_DECODING_H_
