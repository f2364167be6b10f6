// How much of a JIT-compiled frame is built at an interrupted pc, from the x86_64 instructions
// HotSpot emits around a compiled method's body (C1 and C2 alike, MacroAssembler::verified_entry
// and the return sequence):
//   prologue  [stack bang: mov %eax,-N(%rsp)]... push %rbp [mov %rsp,%rbp] sub $F,%rsp
//             or, without a bang:  sub $F,%rsp  mov %rbp,F(%rsp)
//             then the nmethod entry barrier (the frame is whole from the sub on);
//   epilogue  add $F,%rsp  pop %rbp  [cmp 0xNN(%r15),%rsp  ja <poll stub>]  ret
//             (or, leaving by an exception, pop %rbp  jmp <rethrow stub>).
// The unwinder needs this only for the interrupted frame: every caller is stopped at a call, its
// frame whole. Before these rules it guessed (return address at sp, else after a pushed rbp, kept
// if it pointed at code), and a frame caught between its sub and its first store read a stale
// return address left there by an earlier call: a real return address, into another method, so
// the guess passed and the sample got an impossible stack. Here nothing is guessed: the prologue
// is decoded from the entry up to the pc, the epilogue is recognised at the pc, and whatever the
// rules do not know is kUnknown (the walk stops there, it names nothing).
#ifndef VTCTX_READER_FRAME_CONSTRUCTION_H_
#define VTCTX_READER_FRAME_CONSTRUCTION_H_

#include <cstdint>
#include <span>

namespace vtctx::reader {

enum class FrameBuilt {
  kNothing,       // only the return address: it is at sp (before the prologue, after the epilogue)
  kRbpPushed,     // the caller's rbp at sp, the return address above it
  kWhole,         // the frame of the code blob's frame size, the caller's rbp saved in it
  kWholeRbpLive,  // the frame allocated, the caller's rbp not yet stored: still in rbp
  kUnknown,       // code these rules do not describe: do not unwind this frame
};

// The prologue: `code` holds the instructions from the frame's entry (a call's landing point,
// frame not built) up to the interrupted pc, exclusive. Decoded instruction by instruction; a pc
// inside an instruction, or an instruction these rules do not know before the frame is whole,
// is kUnknown. `frame_bytes`: the code blob's frame size.
FrameBuilt PrologueState(std::span<const uint8_t> code, uint64_t frame_bytes);

// After the prologue (the pc at or after the blob's frame-complete offset, before its stubs):
// `before` the bytes just before the pc (up to 8), `at` those from the pc on (up to 16). The
// epilogue's instructions are recognised; anything else is the body: kWhole.
FrameBuilt BodyState(std::span<const uint8_t> before, std::span<const uint8_t> at,
                     uint64_t frame_bytes);

}  // namespace vtctx::reader

#endif  // VTCTX_READER_FRAME_CONSTRUCTION_H_
