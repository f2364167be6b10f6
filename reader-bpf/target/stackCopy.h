// A sample's user registers and a copy of its user stack (profile.bpf.c copies both when the
// target's JIT code keeps no frame pointers). The copy is the target's memory: every read of it is
// bounded by it, and what it holds is only ever a value to validate.
#ifndef VTCTX_READER_STACK_COPY_H_
#define VTCTX_READER_STACK_COPY_H_

#include <compare>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>

namespace vtctx::reader {

// The registers a frame walk needs: the sampled thread's, or those of a frame the walk reached.
struct FrameState {
  uint64_t pc = 0;
  uint64_t sp = 0;
  uint64_t fp = 0;  // rbp
  auto operator<=>(const FrameState&) const = default;
};

struct StackCopy {
  uint64_t base = 0;  // the target address of bytes[0]
  std::span<const uint8_t> bytes;
  bool cut = false;  // the copy ended at its size bound, not at the stack's top: more lies above

  // The 8 bytes at `address` if the copy holds all of them.
  std::optional<uint64_t> Word(uint64_t address) const {
    if (address < base || address - base > bytes.size() || bytes.size() - (address - base) < 8) {
      return std::nullopt;
    }
    uint64_t value = 0;
    std::memcpy(&value, bytes.data() + (address - base), sizeof value);
    return value;
  }
  bool Holds(uint64_t address) const { return Word(address).has_value(); }
};

}  // namespace vtctx::reader

#endif  // VTCTX_READER_STACK_COPY_H_
