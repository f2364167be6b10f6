// Call-frame information of native code (an ELF file's .eh_frame, the DWARF CFI every x86_64
// compiler emits for exceptions, with or without frame pointers), reduced to what a stack walk
// needs: per address range, how the caller's frame is found (CFA = rsp or rbp + offset; the return
// address at CFA + ra_offset; the caller's rbp saved at CFA + rbp_offset or left in rbp).
//
// The file is the target's (a hostile process can map any file under a library's name): the
// parser bounds every read by the section, every loop by its input, the rows in total, and turns
// what it does not describe (CFA by expression, rbp by expression or in another register) into
// rows that say so, never into a guess.
#ifndef VTCTX_READER_CFI_TABLE_H_
#define VTCTX_READER_CFI_TABLE_H_

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "target/stackCopy.h"

namespace vtctx::reader {

struct CfiRow {
  enum class Cfa : uint8_t {
    kRsp,      // CFA = rsp + cfa_offset
    kRbp,      // CFA = rbp + cfa_offset
    kUnknown,  // not described here (an expression, another register), or no FDE covers the pc
  };
  uint64_t pc = 0;  // the row holds from this link-time address to the next row's
  Cfa cfa = Cfa::kUnknown;
  bool rbp_saved = false;    // the caller's rbp at CFA + rbp_offset; else still in rbp
  bool rbp_unknown = false;  // rbp by a rule not described: callers reached by rbp cannot be
  bool outermost = false;    // the return address is undefined: the thread's first frame
  int32_t cfa_offset = 0;
  int32_t rbp_offset = 0;
  int32_t ra_offset = -8;
};

class CfiTable {
 public:
  // Parses `eh_frame`, the section's bytes, loaded at link-time address `vaddr`. At most
  // `max_rows` rows (and never more than kMaxRows); InvalidArgument for a malformed section (a
  // malformed entry ends the parse: what came before it is kept only if the section's framing
  // held).
  static absl::StatusOr<CfiTable> Parse(std::span<const uint8_t> eh_frame, uint64_t vaddr,
                                        size_t max_rows = kMaxRows);

  // The row holding for link-time address `pc`; nullptr where no FDE covers it.
  const CfiRow* Find(uint64_t pc) const;
  size_t size() const { return rows_.size(); }
  size_t bytes() const { return rows_.capacity() * sizeof(CfiRow); }

  // Rows and FDE end marks together (libjvm has ~290k): bounds a hostile file's table to ~50 MB.
  static constexpr size_t kMaxRows = 2 << 20;

 private:
  std::vector<CfiRow> rows_;  // sorted by pc
};

// The caller of the frame `frame` (innermost: its pc; a caller: at its return address) by `row`,
// reading the copy; nullopt where the row does not describe the frame or a read leaves the
// copy. The outermost frame gives a caller with pc 0.
std::optional<FrameState> CfiCaller(const CfiRow& row, const FrameState& frame,
                                    const StackCopy& copy);

}  // namespace vtctx::reader

#endif  // VTCTX_READER_CFI_TABLE_H_
