#include "hotspot/userStackUnwind.h"

#include <algorithm>
#include <array>
#include <utility>

namespace vtctx::reader {
namespace {

// A caller found by a rule, and whether a return address of 0 may end the walk there (only the
// layout the code blob says it has may: a 0 any heuristic layout reads is stale stack).
struct Candidate {
  std::optional<FrameState> caller;
  bool exact = true;
};

// frame_x86.hpp's interpreter frame: words below rbp.
constexpr uint64_t kInterpreterMethodSlot = 3 * 8;
constexpr uint64_t kInterpreterBcpSlot = 8 * 8;

InterpretedSlots ReadInterpretedSlots(const FrameState& frame, const StackCopy& copy) {
  if (frame.fp < kInterpreterBcpSlot) return {};
  return {copy.Word(frame.fp - kInterpreterMethodSlot).value_or(0),
          copy.Word(frame.fp - kInterpreterBcpSlot).value_or(0)};
}

// Whether the frame's caller lies past the end of a copy that was cut (the stack went on): a read
// the frame's own rule needs (its return address, its saved rbp) is beyond the copy.
bool PastCopy(const FrameState& frame, const std::optional<CodeFacts>& java,
              const StackCopy& copy) {
  if (!copy.cut) return false;
  const uint64_t end = copy.base + copy.bytes.size();
  uint64_t needed = frame.sp + 8;  // the return address of a frame with nothing pushed
  if (java && java->kind == CodeKind::kCompiled) needed = frame.sp + java->frame_bytes;
  if (frame.fp >= frame.sp && (!java || java->kind != CodeKind::kCompiled)) {
    needed = std::max(needed, frame.fp + 16);  // rbp-based: saved rbp and return address
  }
  return needed > end;
}

// The caller of the continuation return barrier: Continuation.enterSpecial's frame, whose rbp
// lies the ContinuationEntry's size above the barrier's sp, its return address into its caller,
// Continuation.run (Java code). Where the JVM does not name that size (Java 21's VMStructs have no
// ContinuationEntry), the smallest 16-byte-aligned size up to kMaxContinuationEntryBytes whose
// return address is Java code (compiled or interpreted, not a stub) is taken: the entry's fields
// (oops, counts, pointers into the stack) are never code.
constexpr uint64_t kMaxContinuationEntryBytes = 128;

std::optional<FrameState> BarrierCaller(const FrameState& frame, const StackCopy& copy,
                                        CodeLookup& code) {
  if (const std::optional<uint64_t> bytes = code.ContinuationEntryBytes()) {
    if (frame.sp + *bytes <= frame.sp) return std::nullopt;
    return FramePointerCaller({frame.pc, frame.sp, frame.sp + *bytes}, copy);
  }
  for (uint64_t bytes = 16; bytes <= kMaxContinuationEntryBytes; bytes += 16) {
    std::optional<FrameState> caller =
        FramePointerCaller({frame.pc, frame.sp, frame.sp + bytes}, copy);
    if (!caller || caller->pc == 0) continue;
    const std::optional<CodeFacts> java = code.JavaCode(caller->pc - 1);
    if (java && java->kind != CodeKind::kFrameless) return caller;
  }
  return std::nullopt;
}

}  // namespace

FrameBuilt CodeLookup::InterruptedFrame(uint64_t /*pc*/, const CodeFacts& /*facts*/) {
  return FrameBuilt::kUnknown;
}

std::optional<FrameState> CodeLookup::NativeCfiCaller(const FrameState& /*frame*/, uint64_t /*at*/,
                                                      const StackCopy& /*copy*/) {
  return std::nullopt;
}

std::optional<FrameState> CompiledCaller(const FrameState& frame, uint64_t frame_bytes,
                                         const StackCopy& copy) {
  if (frame_bytes < 16 || frame_bytes % 8 != 0 || frame_bytes > copy.bytes.size()) {
    return std::nullopt;
  }
  const uint64_t sender_sp = frame.sp + frame_bytes;
  if (sender_sp < frame.sp) return std::nullopt;
  const std::optional<uint64_t> ret = copy.Word(sender_sp - 8);
  const std::optional<uint64_t> fp = copy.Word(sender_sp - 16);
  if (!ret || !fp) return std::nullopt;
  return FrameState{*ret, sender_sp, *fp};
}

std::optional<FrameState> InterpretedCaller(const FrameState& frame, const StackCopy& copy) {
  if (frame.fp < frame.sp || frame.fp < 8) return std::nullopt;
  const std::optional<uint64_t> ret = copy.Word(frame.fp + 8);
  const std::optional<uint64_t> saved_fp = copy.Word(frame.fp);
  const std::optional<uint64_t> sender_sp = copy.Word(frame.fp - 8);
  if (!ret || !saved_fp) return std::nullopt;
  // The caller's sp as the interpreter saved it lies at or above the return address's slot (a
  // c2i adapter moves it up by the arguments it copied); a value the copy cannot hold is stale,
  // and the frame's own end is used instead.
  const uint64_t frame_end = frame.fp + 16;
  uint64_t caller_sp = frame_end;
  if (sender_sp && *sender_sp >= frame_end && *sender_sp - frame_end <= copy.bytes.size()) {
    caller_sp = *sender_sp;
  }
  return FrameState{*ret, caller_sp, *saved_fp};
}

std::optional<FrameState> FramePointerCaller(const FrameState& frame, const StackCopy& copy) {
  if (frame.fp < frame.sp) return std::nullopt;
  const std::optional<uint64_t> ret = copy.Word(frame.fp + 8);
  const std::optional<uint64_t> saved_fp = copy.Word(frame.fp);
  if (!ret || !saved_fp) return std::nullopt;
  return FrameState{*ret, frame.fp + 16, *saved_fp};
}

std::optional<FrameState> FramelessCaller(const FrameState& frame, const StackCopy& copy) {
  const std::optional<uint64_t> ret = copy.Word(frame.sp);
  if (!ret) return std::nullopt;
  return FrameState{*ret, frame.sp + 8, frame.fp};
}

std::optional<FrameState> PushedFpCaller(const FrameState& frame, const StackCopy& copy) {
  const std::optional<uint64_t> saved_fp = copy.Word(frame.sp);
  const std::optional<uint64_t> ret = copy.Word(frame.sp + 8);
  if (!ret || !saved_fp) return std::nullopt;
  return FrameState{*ret, frame.sp + 16, *saved_fp};
}

UnwoundStack UnwindUserStack(const FrameState& registers, const StackCopy& copy, CodeLookup& code,
                             size_t max_frames) {
  UnwoundStack out;
  FrameState frame = registers;
  // Keeps `interpreted` as long as `pcs` once it is used.
  auto finish = [&](UnwindEnd end) {
    if (!out.interpreted.empty()) out.interpreted.resize(out.pcs.size());
    out.end = end;
    return std::move(out);
  };
  // A return address is looked up at the call (address - 1): a call can end its code blob.
  auto is_code = [&](uint64_t return_address) {
    return return_address != 0 &&
           (code.JavaCode(return_address - 1).has_value() || code.NativeCode(return_address - 1));
  };
  while (true) {
    if (out.pcs.size() >= max_frames) {
      return finish(UnwindEnd::kDepthLimited);
    }
    const bool innermost = out.pcs.empty();
    out.pcs.push_back(frame.pc);
    const uint64_t at = innermost ? frame.pc : frame.pc - 1;
    const std::optional<CodeFacts> java = code.JavaCode(at);
    std::array<Candidate, 4> candidates{};
    if (java) {
      switch (java->kind) {
        case CodeKind::kInterpreter:
          out.interpreted.resize(out.pcs.size());
          out.interpreted.back() = ReadInterpretedSlots(frame, copy);
          candidates = {Candidate{InterpretedCaller(frame, copy)},
                        Candidate{innermost ? FramelessCaller(frame, copy) : std::nullopt, false},
                        Candidate{innermost ? PushedFpCaller(frame, copy) : std::nullopt, false}};
          break;
        case CodeKind::kCompiled:
          if (innermost) {
            // Only the code at the pc says how much of this frame exists: a guess here read
            // stale return addresses (frameConstruction.h).
            std::optional<FrameState> caller;
            const FrameBuilt built = code.InterruptedFrame(frame.pc, *java);
            out.innermost_own_code = frame.pc < java->frame_complete ||
                                     built == FrameBuilt::kNothing ||
                                     built == FrameBuilt::kRbpPushed;
            switch (built) {
              case FrameBuilt::kNothing:
                caller = FramelessCaller(frame, copy);
                break;
              case FrameBuilt::kRbpPushed:
                caller = PushedFpCaller(frame, copy);
                break;
              case FrameBuilt::kWhole:
                caller = CompiledCaller(frame, java->frame_bytes, copy);
                break;
              case FrameBuilt::kWholeRbpLive:
                caller = CompiledCaller(frame, java->frame_bytes, copy);
                if (caller) caller->fp = frame.fp;
                break;
              case FrameBuilt::kUnknown:
                return finish(UnwindEnd::kStopped);
            }
            candidates = {Candidate{caller}};
          } else {
            candidates = {Candidate{CompiledCaller(frame, java->frame_bytes, copy)}};
          }
          break;
        case CodeKind::kFrameless:
          candidates = {
              Candidate{innermost ? FramelessCaller(frame, copy) : std::nullopt, false},
              Candidate{FramePointerCaller(frame, copy), !innermost},
              Candidate{innermost ? PushedFpCaller(frame, copy) : std::nullopt, false},
              Candidate{innermost ? std::nullopt : BarrierCaller(frame, copy, code), false}};
          break;
      }
    } else if (code.NativeCode(at)) {
      // Call-frame information describes every instruction, the interrupted one too: where the
      // file has it, it alone is used. Without it, the frame-pointer chain, and for the
      // interrupted frame the frameless layouts.
      const std::optional<FrameState> by_cfi = code.NativeCfiCaller(frame, at, copy);
      if (by_cfi) {
        candidates = {Candidate{by_cfi}};
      } else if (!innermost && frame.fp == 0) {  // the ABI's outermost frame: rbp cleared
        return finish(UnwindEnd::kRoot);
      } else {
        candidates = {Candidate{FramePointerCaller(frame, copy)},
                      Candidate{innermost ? FramelessCaller(frame, copy) : std::nullopt, false},
                      Candidate{innermost ? PushedFpCaller(frame, copy) : std::nullopt, false}};
      }
    } else {
      return finish(UnwindEnd::kStopped);  // a pc in no code known: nothing to unwind by
    }
    const Candidate* next = nullptr;
    for (const Candidate& c : candidates) {
      if (!c.caller || c.caller->sp <= frame.sp) continue;
      if (c.caller->pc == 0 && c.exact) {
        return finish(UnwindEnd::kRoot);
      }
      if (is_code(c.caller->pc)) {
        next = &c;
        break;
      }
    }
    if (next == nullptr) {
      return finish(PastCopy(frame, java, copy) ? UnwindEnd::kCopyEnd
                    : java                      ? UnwindEnd::kStopped
                                                : UnwindEnd::kNativeEnd);
    }
    frame = *next->caller;
  }
}

}  // namespace vtctx::reader
