// Unwinding a sample's user stack from a copy of it (target/stackCopy.h), for JVMs whose JIT code
// keeps no frame pointers (-XX:-PreserveFramePointer, the default). The rules are HotSpot's own
// frame layout on x86_64, as pure functions of (frame, stack copy, code-blob facts):
//   - compiled frame (an nmethod or a stub with a frame): the frame is frame_bytes long, ending
//     with the return address and the caller's saved rbp: sender sp = sp + frame_bytes, return
//     address at sender sp - 8, saved rbp at sender sp - 16;
//   - interpreted frame: the interpreter keeps rbp as its frame pointer: return address at
//     rbp + 8, saved rbp at rbp, the caller's sp saved at rbp - 8 (interpreter_frame_sender_sp,
//     which a c2i adapter may have moved); the frame's Method* at rbp - 24 and its bytecode
//     pointer at rbp - 64 (frame_x86.hpp: interpreter_frame_method_offset -3, _bcp_offset -8)
//     are kept for naming the frame (methodNames.h checks the one against the other);
//   - frameless stub (a code blob of frame size 0: adapters, vtable stubs, the call stub): where
//     it is the interrupted frame, the return address is at sp; where it is a caller (the call
//     stub into Java), its frame is rbp-based; the continuation return barrier (a yielded virtual
//     thread's bottom thawed frame returns into it) sits on the ContinuationEntry that
//     Continuation.enterSpecial keeps below its rbp: where rbp does not lead on, rbp = sp + the
//     entry's size is tried (Java 21, which does not name that size: the smallest size whose
//     return address is Java code, enterSpecial's caller);
//   - native code (libjvm, libc, JNI libraries): the file's call-frame information where it has
//     it (CodeLookup::NativeCfiCaller, target/nativeFrames.h), else the frame-pointer chain.
// The interrupted frame alone may be caught in a prologue or epilogue, where the frame is not (or
// no longer) built: for a compiled frame the code at the pc says how much is built
// (CodeLookup::InterruptedFrame, frameConstruction.h), and a frame it does not describe ends the
// walk; for the other kinds the candidate the rules give is kept only if its return address is
// code, else the frameless layouts are tried. Every step must move sp up; every read is bounded by
// the copy; the walk stops at a frame limit.
#ifndef VTCTX_READER_USER_STACK_UNWIND_H_
#define VTCTX_READER_USER_STACK_UNWIND_H_

#include <compare>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "hotspot/frameConstruction.h"
#include "target/stackCopy.h"

namespace vtctx::reader {

enum class CodeKind {
  kInterpreter,  // the template interpreter's code
  kCompiled,     // a code blob with a frame: nmethod, RuntimeStub, safepoint / deopt blobs
  kFrameless,    // a code blob of frame size 0: adapters, vtable stubs, StubRoutines
};

// What the JVM says about the code blob holding a pc.
struct CodeFacts {
  CodeKind kind = CodeKind::kCompiled;
  uint64_t frame_bytes = 0;     // kCompiled: frame size with return address and saved rbp
  uint64_t frame_complete = 0;  // kCompiled: first pc with the frame built (0: from the start)
  uint64_t blob = 0;            // the CodeBlob's address (0: not known)
  uint64_t code_begin = 0;      // its first instruction
};

class CodeLookup {
 public:
  virtual ~CodeLookup() = default;
  // The code blob of the JVM's code cache holding `pc`; nullopt: not JIT code.
  virtual std::optional<CodeFacts> JavaCode(uint64_t pc) = 0;
  // `pc` lies in an executable file mapping (native code).
  virtual bool NativeCode(uint64_t pc) = 0;
  // The caller of a native frame by its file's call-frame information (`at`: the address looked
  // up, pc - 1 for a return address); nullopt where there is none (the frame-pointer rule is
  // used then). None by default.
  virtual std::optional<FrameState> NativeCfiCaller(const FrameState& frame, uint64_t at,
                                                    const StackCopy& copy);
  // How much of the frame of the compiled code blob holding `pc` is built with `pc` interrupted
  // (frameConstruction.h); kUnknown by default: the walk stops at such a frame.
  virtual FrameBuilt InterruptedFrame(uint64_t pc, const CodeFacts& facts);
  // sizeof(ContinuationEntry) aligned to 16 (its size on the stack); nullopt: not known.
  virtual std::optional<uint64_t> ContinuationEntryBytes() { return std::nullopt; }
};

// The rules above, one step each (nullopt: a read outside the copy or sp not moving up).
std::optional<FrameState> CompiledCaller(const FrameState& frame, uint64_t frame_bytes,
                                         const StackCopy& copy);
std::optional<FrameState> InterpretedCaller(const FrameState& frame, const StackCopy& copy);
std::optional<FrameState> FramePointerCaller(const FrameState& frame, const StackCopy& copy);
// A frame with nothing pushed but its return address (at sp).
std::optional<FrameState> FramelessCaller(const FrameState& frame, const StackCopy& copy);
// A frame with its caller's rbp pushed after the return address (a prologue's first push).
std::optional<FrameState> PushedFpCaller(const FrameState& frame, const StackCopy& copy);

enum class UnwindEnd {
  kRoot,          // a return address of 0 or an rbp chain ending in 0: the thread's first frame
  kNativeEnd,     // native code whose caller the frame-pointer chain does not give (e.g. libc)
  kStopped,       // a JIT or interpreter frame whose caller could not be found: frames missing
  kDepthLimited,  // max_frames reached
  kCopyEnd,       // the caller lies past the end of a copy cut at its size bound: frames missing
};

// What an interpreted frame says of the method it runs, as read from the copy (zeros: not an
// interpreted frame, or not in the copy). Values of the target: to validate before use.
struct InterpretedSlots {
  uint64_t method = 0;  // Method*
  uint64_t bcp = 0;     // bytecode pointer
  auto operator<=>(const InterpretedSlots&) const = default;
};

struct UnwoundStack {
  std::vector<uint64_t> pcs;  // innermost first: the interrupted pc, then return addresses
  // Per pc when any frame is interpreted, else empty.
  std::vector<InterpretedSlots> interpreted;
  // The interrupted frame is compiled code stopped in its entry (before the blob's frame-complete
  // offset) or in its epilogue: the code at the pc is the method's own, none of its inlined
  // callees', so its frame is named by the method alone (as async-profiler names it), not by the
  // scopes of the next PcDesc, which describe the body's first call or poll.
  bool innermost_own_code = false;
  UnwindEnd end = UnwindEnd::kStopped;
};

UnwoundStack UnwindUserStack(const FrameState& registers, const StackCopy& copy, CodeLookup& code,
                             size_t max_frames);

}  // namespace vtctx::reader

#endif  // VTCTX_READER_USER_STACK_UNWIND_H_
