// One ring-buffer record of profile.bpf.c (vtctx_sample_event, profile.h), split into its parts:
// the event, its attrs-data and its stacks. Records come from our own BPF program, but their sizes
// are still checked: a malformed record is refused, never read past.
#ifndef VTCTX_READER_SAMPLE_RECORD_H_
#define VTCTX_READER_SAMPLE_RECORD_H_

#include <compare>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "commands/profile.h"
#include "hotspot/userStackUnwind.h"
#include "target/stackCopy.h"

namespace vtctx::reader {

// A sample's stacks as the kernel walked them.
struct SampleStacks {
  std::vector<uint64_t> user;    // innermost first
  std::vector<uint64_t> kernel;  // innermost first
  // Unwound from a copy: per user frame, what an interpreted frame holds of its method (names
  // it); empty when no frame is interpreted.
  std::vector<InterpretedSlots> interpreted;
  // The innermost user frame is compiled code in its entry or exit: named by its method alone
  // (UnwoundStack::innermost_own_code).
  bool innermost_own_code = false;
  int32_t user_error = 0;  // -errno of the user walk (0: walked; -14 EFAULT included)
  // A stack filled all VTCTX_MAX_STACK_DEPTH frames: its outermost frames may be missing.
  bool depth_limited = false;
  // The user stack was unwound from a copy (unwindUserStack.h) and a step failed: its outermost
  // frames are missing.
  bool unwind_stopped = false;
  // The unwinding reached the end of the copy, cut at VTCTX_USER_COPY_BYTES: outermost frames
  // missing.
  bool copy_cut = false;
  auto operator<=>(const SampleStacks&) const = default;
};

struct SampleRecord {
  const vtctx_sample_event* event = nullptr;  // points into the record
  std::span<const uint8_t> attrs;             // ctx.attrs_len bytes of attrs-data
  SampleStacks stacks;                        // empty when the event carries none
  // With a user stack copy (VTCTX_STACKS_COPY_SIZE): the registers and the copy (pointing into
  // the record), which the caller unwinds into stacks.user.
  std::optional<FrameState> user_registers;
  StackCopy user_copy;
};

// nullopt when the record is shorter than its own fields say.
std::optional<SampleRecord> ParseSampleRecord(std::span<const uint8_t> record);

}  // namespace vtctx::reader

#endif  // VTCTX_READER_SAMPLE_RECORD_H_
