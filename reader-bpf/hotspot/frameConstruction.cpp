#include "hotspot/frameConstruction.h"

#include <cstddef>
#include <initializer_list>

namespace vtctx::reader {
namespace {

// `code` starts with `bytes`, a wildcard byte written as -1 (an immediate or displacement).
bool StartsWith(std::span<const uint8_t> code, std::initializer_list<int> bytes) {
  if (code.size() < bytes.size()) return false;
  size_t i = 0;
  for (int b : bytes) {
    if (b >= 0 && code[i] != static_cast<uint8_t>(b)) return false;
    i++;
  }
  return true;
}

bool EndsWith(std::span<const uint8_t> code, std::initializer_list<int> bytes) {
  return code.size() >= bytes.size() && StartsWith(code.last(bytes.size()), bytes);
}

// The length of a multi-byte nop at the start of `code` (HotSpot pads with them), else 0.
size_t NopLength(std::span<const uint8_t> code) {
  size_t prefixes = 0;
  while (prefixes < code.size() && code[prefixes] == 0x66) prefixes++;
  std::span<const uint8_t> rest = code.subspan(prefixes);
  if (StartsWith(rest, {0x90})) return prefixes + 1;
  if (!StartsWith(rest, {0x0f, 0x1f, -1})) return 0;
  switch (rest[2]) {  // nopl with a ModRM (and SIB) of no effect, by displacement size
    case 0x00:
      return prefixes + 3;
    case 0x40:
      return prefixes + 4;
    case 0x44:
      return prefixes + 5;
    case 0x80:
      return prefixes + 7;
    case 0x84:
      return prefixes + 8;
    default:
      return 0;
  }
}

// The epilogue's return safepoint poll: cmp disp8/disp32(%r15),%rsp.
constexpr std::initializer_list<int> kPollDisp8 = {0x49, 0x3b, 0x67, -1};
constexpr std::initializer_list<int> kPollDisp32 = {0x49, 0x3b, 0xa7, -1, -1, -1, -1};

bool AtPoll(std::span<const uint8_t> at) {
  return StartsWith(at, kPollDisp8) || StartsWith(at, kPollDisp32);
}

}  // namespace

FrameBuilt PrologueState(std::span<const uint8_t> code, uint64_t frame_bytes) {
  FrameBuilt state = FrameBuilt::kNothing;
  size_t pos = 0;
  while (pos < code.size()) {
    const std::span<const uint8_t> at = code.subspan(pos);
    size_t length = 0;
    FrameBuilt next = state;
    if (StartsWith(at, {0x89, 0x84, 0x24, -1, -1, -1, -1})) {  // stack bang: mov %eax,-N(%rsp)
      if (state != FrameBuilt::kNothing) return FrameBuilt::kUnknown;
      length = 7;
    } else if (StartsWith(at, {0x55})) {  // push %rbp
      if (state != FrameBuilt::kNothing) return FrameBuilt::kUnknown;
      length = 1;
      // A 16-byte frame is the return address and the saved rbp: no sub follows.
      next = frame_bytes == 16 ? FrameBuilt::kWhole : FrameBuilt::kRbpPushed;
    } else if ((StartsWith(at, {0x48, 0x89, 0xe5}) || StartsWith(at, {0x48, 0x8b, 0xec})) &&
               (state == FrameBuilt::kRbpPushed || frame_bytes == 16)) {
      // mov %rsp,%rbp (-XX:+PreserveFramePointer), in either encoding (HotSpot's assembler emits
      // 8b /r): the frame is unchanged.
      length = 3;
    } else if (StartsWith(at, {0x48, 0x83, 0xec, -1}) ||
               StartsWith(at, {0x48, 0x81, 0xec, -1, -1, -1, -1})) {  // sub $F,%rsp
      if (state == FrameBuilt::kWhole || state == FrameBuilt::kWholeRbpLive) return state;
      length = at[1] == 0x83 ? 4 : 7;
      next = state == FrameBuilt::kRbpPushed ? FrameBuilt::kWhole : FrameBuilt::kWholeRbpLive;
    } else if ((StartsWith(at, {0x48, 0x89, 0x6c, 0x24, -1}) ||
                StartsWith(at, {0x48, 0x89, 0xac, 0x24, -1, -1, -1, -1})) &&
               state == FrameBuilt::kWholeRbpLive) {  // mov %rbp,F(%rsp): the caller's rbp stored
      length = at[2] == 0x6c ? 5 : 8;
      next = FrameBuilt::kWhole;
    } else if (const size_t nop = NopLength(at); nop > 0) {
      length = nop;
    } else {
      // The rest of a prologue (the nmethod entry barrier) leaves a whole frame as it is; an
      // unknown instruction before that (a class-initialisation barrier, a not-entrant patch
      // over the entry) is not described.
      return state == FrameBuilt::kWhole ? state : FrameBuilt::kUnknown;
    }
    if (length > at.size()) return FrameBuilt::kUnknown;  // the pc inside an instruction
    pos += length;
    state = next;
  }
  return state;
}

FrameBuilt BodyState(std::span<const uint8_t> before, std::span<const uint8_t> at,
                     uint64_t frame_bytes) {
  if (StartsWith(at, {0xc3})) return FrameBuilt::kNothing;  // ret: the frame is gone
  // The epilogue's pop %rbp comes right after its add $F,%rsp (none for a 16-byte frame: the
  // return address and the saved rbp are all of it).
  auto pop_follows_add = [&](std::span<const uint8_t> upto) {
    return frame_bytes == 16 || EndsWith(upto, {0x48, 0x83, 0xc4, -1}) ||
           EndsWith(upto, {0x48, 0x81, 0xc4, -1, -1, -1, -1});
  };
  if (StartsWith(at, {0x5d}) && pop_follows_add(before)) return FrameBuilt::kRbpPushed;
  // After that pop: the return poll, or the jump to the rethrow stub.
  if (EndsWith(before, {0x5d}) && pop_follows_add(before.first(before.size() - 1)) &&
      (AtPoll(at) || StartsWith(at, {0xe9, -1, -1, -1, -1}))) {
    return FrameBuilt::kNothing;
  }
  // The poll's ja to its stub (the poll compares rsp only on return).
  if (StartsWith(at, {0x0f, 0x87, -1, -1, -1, -1}) &&
      (EndsWith(before, kPollDisp8) || EndsWith(before, kPollDisp32))) {
    return FrameBuilt::kNothing;
  }
  return FrameBuilt::kWhole;
}

}  // namespace vtctx::reader
