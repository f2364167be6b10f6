// How much of a compiled frame is built at a pc (hotspot/frameConstruction.h), on code bytes
// recorded from live JVMs (Temurin 25.0.3 and 21.0.8, tests/reader/jvm/StackWorkloads, read from
// /proc/<pid>/mem at the perf map's addresses): a C2 prologue with a stack bang, one without (a
// virtual method: inline-cache check, then the verified entry), a C1 entry patched not entrant,
// and the C2 return sequences.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "hotspot/frameConstruction.h"

namespace vtctx::reader {
namespace {

using Bytes = std::vector<uint8_t>;

FrameBuilt PrologueAt(const Bytes& code, size_t pc_offset, uint64_t frame_bytes = 64) {
  return PrologueState(std::span<const uint8_t>(code.data(), pc_offset), frame_bytes);
}

// StackWorkloads.fib(int), C2, Temurin 25 (verified entry = code begin, a static method).
const Bytes kFibC2 = {
    0x89, 0x84, 0x24, 0x00, 0xc0, 0xfe, 0xff,        // 0x00 mov %eax,-0x14000(%rsp)
    0x55,                                            // 0x07 push %rbp
    0x48, 0x83, 0xec, 0x30,                          // 0x08 sub $0x30,%rsp
    0x41, 0x81, 0x7f, 0x20, 0x01, 0x00, 0x00, 0x00,  // 0x0c cmpl $0x1,0x20(%r15)
    0x0f, 0x85, 0xe6, 0x00, 0x00, 0x00,              // 0x14 jne <entry barrier stub>
    0x89, 0x34, 0x24,                                // 0x1a mov %esi,(%rsp)
};

// StackWorkloads$Circle.area(long), C2, Temurin 25, from its verified entry (code begin + 16,
// after the inline-cache check): no stack bang.
const Bytes kAreaC2 = {
    0x48, 0x81, 0xec, 0x18, 0x00, 0x00, 0x00,        // 0x00 sub $0x18,%rsp
    0x48, 0x89, 0x6c, 0x24, 0x10,                    // 0x07 mov %rbp,0x10(%rsp)
    0x41, 0x81, 0x7f, 0x20, 0x01, 0x00, 0x00, 0x00,  // 0x0c cmpl $0x1,0x20(%r15)
    0x0f, 0x85, 0x5e, 0x00, 0x00, 0x00,              // 0x14 jne <entry barrier stub>
};

// StackWorkloads.megamorphic(long), C1, Temurin 25, made not entrant: a jmp over the bang.
const Bytes kMegamorphicC1NotEntrant = {
    0xe9, 0x5b, 0xd1, 0x52, 0x07,  // 0x00 jmp <handle_wrong_method>
    0xfe, 0xff,                    // 0x05 the bang's last bytes
    0x55,                          // 0x07 push %rbp
    0x48, 0x83, 0xec, 0x60,        // 0x08 sub $0x60,%rsp
};

TEST(FrameConstruction, PrologueWithStackBang) {
  EXPECT_EQ(PrologueAt(kFibC2, 0x00), FrameBuilt::kNothing);    // at the entry
  EXPECT_EQ(PrologueAt(kFibC2, 0x07), FrameBuilt::kNothing);    // banged, nothing pushed
  EXPECT_EQ(PrologueAt(kFibC2, 0x08), FrameBuilt::kRbpPushed);  // at the sub
  EXPECT_EQ(PrologueAt(kFibC2, 0x0c), FrameBuilt::kWhole);      // the entry barrier
  EXPECT_EQ(PrologueAt(kFibC2, 0x14), FrameBuilt::kWhole);
  EXPECT_EQ(PrologueAt(kFibC2, 0x1a), FrameBuilt::kWhole);
  EXPECT_EQ(PrologueAt(kFibC2, 0x03), FrameBuilt::kUnknown);  // inside the bang: not a pc
  EXPECT_EQ(PrologueAt(kFibC2, 0x0a), FrameBuilt::kUnknown);  // inside the sub
}

TEST(FrameConstruction, PrologueWithoutStackBang) {
  EXPECT_EQ(PrologueAt(kAreaC2, 0x00), FrameBuilt::kNothing);
  EXPECT_EQ(PrologueAt(kAreaC2, 0x07), FrameBuilt::kWholeRbpLive);  // rbp not stored yet
  EXPECT_EQ(PrologueAt(kAreaC2, 0x0c), FrameBuilt::kWhole);
  EXPECT_EQ(PrologueAt(kAreaC2, 0x14), FrameBuilt::kWhole);
}

// With -XX:+PreserveFramePointer: push %rbp; mov %rsp,%rbp; sub. HotSpot encodes the mov as
// 48 8b ec (StackWorkloads.fib(int), C2, Temurin 25.0.3 with -XX:+PreserveFramePointer: a reader
// knowing only 48 89 e5 stopped the walk of 8-25 % of fib's samples); the other encoding too.
TEST(FrameConstruction, PrologueWithFramePointer) {
  const Bytes fib = {0x89, 0x84, 0x24, 0x00, 0xc0, 0xfe, 0xff,         // 0x00 stack bang
                     0x55,                                             // 0x07 push %rbp
                     0x48, 0x8b, 0xec,                                 // 0x08 mov %rsp,%rbp
                     0x48, 0x83, 0xec, 0x30,                           // 0x0b sub $0x30,%rsp
                     0x90,                                             // 0x0f nop
                     0x41, 0x81, 0x7f, 0x20, 0x01, 0x00, 0x00, 0x00};  // 0x10 entry barrier
  EXPECT_EQ(PrologueAt(fib, 0x08), FrameBuilt::kRbpPushed);
  EXPECT_EQ(PrologueAt(fib, 0x0b), FrameBuilt::kRbpPushed);
  EXPECT_EQ(PrologueAt(fib, 0x0f), FrameBuilt::kWhole);
  EXPECT_EQ(PrologueAt(fib, 0x10), FrameBuilt::kWhole);
  EXPECT_EQ(PrologueAt(fib, 0x09), FrameBuilt::kUnknown);  // inside the mov
  const Bytes other = {0x89, 0x84, 0x24, 0x00, 0xc0, 0xfe, 0xff, 0x55, 0x48, 0x89,
                       0xe5, 0x48, 0x83, 0xec, 0x20, 0x41, 0x81, 0x7f, 0x20};
  EXPECT_EQ(PrologueAt(other, 0x08), FrameBuilt::kRbpPushed);
  EXPECT_EQ(PrologueAt(other, 0x0b), FrameBuilt::kRbpPushed);
  EXPECT_EQ(PrologueAt(other, 0x0f), FrameBuilt::kWhole);
}

// Code the rules do not describe before the frame is whole is kUnknown, never a guess: a
// not-entrant patch, a class-initialisation barrier, padding the decoder does not know, a second
// push.
TEST(FrameConstruction, UndescribedPrologueIsUnknown) {
  EXPECT_EQ(PrologueAt(kMegamorphicC1NotEntrant, 0x00), FrameBuilt::kNothing);  // at the jmp
  EXPECT_EQ(PrologueAt(kMegamorphicC1NotEntrant, 0x07), FrameBuilt::kUnknown);
  EXPECT_EQ(PrologueAt(kMegamorphicC1NotEntrant, 0x08), FrameBuilt::kUnknown);
  const Bytes clinit = {0x49, 0xba, 0, 0, 0, 0, 0, 0, 0, 0, 0x55};  // movabs $k,%r10; push
  EXPECT_EQ(PrologueAt(clinit, 10), FrameBuilt::kUnknown);
  const Bytes twice = {0x55, 0x55};
  EXPECT_EQ(PrologueAt(twice, 2), FrameBuilt::kUnknown);
  const Bytes nops = {0x66, 0x66, 0x90, 0x0f, 0x1f, 0x44, 0x00, 0x00, 0x55};
  EXPECT_EQ(PrologueAt(nops, 8), FrameBuilt::kNothing);
  EXPECT_EQ(PrologueAt(nops, 9), FrameBuilt::kRbpPushed);
}

// StackWorkloads.fib(int), C2: the return sequence (Temurin 25: disp8 poll) and the exception
// exit; Temurin 21's poll has a disp32.
TEST(FrameConstruction, EpilogueByInstruction) {
  const Bytes ret25 = {
      0x48, 0x03, 0xc5, 0xeb, 0x03, 0x48, 0x63, 0xc6,  // add %rbp,%rax; jmp; movslq
      0x48, 0x83, 0xc4, 0x30,                          // 0x08 add $0x30,%rsp
      0x5d,                                            // 0x0c pop %rbp
      0x49, 0x3b, 0x67, 0x28,                          // 0x0d cmp 0x28(%r15),%rsp
      0x0f, 0x87, 0x1d, 0x00, 0x00, 0x00,              // 0x11 ja <poll stub>
      0xc3,                                            // 0x17 ret
      0x48, 0x8b, 0xf0, 0xeb, 0x0d, 0x00, 0x00, 0x00,  // the next block
  };
  const Bytes ret21 = {0x00, 0x00, 0x00, 0x00, 0x48, 0x83, 0xc4, 0x30, 0x5d, 0x49, 0x3b,
                       0xa7, 0x48, 0x04, 0x00, 0x00, 0x0f, 0x87, 0x1d, 0x00, 0x00, 0x00,
                       0xc3, 0x48, 0x8b, 0xf0, 0xeb, 0x0d, 0x00, 0x00, 0x00, 0x00};
  const Bytes rethrow = {0x48, 0x8b, 0xf0, 0x48, 0x83, 0xc4, 0x30, 0x5d, 0xe9, 0xf6,
                         0x1a, 0xba, 0xff, 0xf4, 0xf4, 0xf4, 0xf4, 0xf4, 0xf4, 0xf4};
  auto at = [](const Bytes& code, size_t pc) {
    const std::span<const uint8_t> all(code);
    const size_t before = pc < 8 ? pc : 8;
    return BodyState(all.subspan(pc - before, before), all.subspan(pc), 64);
  };
  EXPECT_EQ(at(ret25, 0x05), FrameBuilt::kWhole);  // the body
  EXPECT_EQ(at(ret25, 0x08), FrameBuilt::kWhole);  // at the add: not popped yet
  EXPECT_EQ(at(ret25, 0x0c), FrameBuilt::kRbpPushed);
  EXPECT_EQ(at(ret25, 0x0d), FrameBuilt::kNothing);
  EXPECT_EQ(at(ret25, 0x11), FrameBuilt::kNothing);
  EXPECT_EQ(at(ret25, 0x17), FrameBuilt::kNothing);
  EXPECT_EQ(at(ret21, 0x08), FrameBuilt::kRbpPushed);
  EXPECT_EQ(at(ret21, 0x09), FrameBuilt::kNothing);
  EXPECT_EQ(at(ret21, 0x10), FrameBuilt::kNothing);
  EXPECT_EQ(at(ret21, 0x16), FrameBuilt::kNothing);
  EXPECT_EQ(at(rethrow, 0x07), FrameBuilt::kRbpPushed);
  EXPECT_EQ(at(rethrow, 0x08), FrameBuilt::kNothing);
  // A pop %rbp or a jmp not preceded by the epilogue is the body's.
  const Bytes body = {0x8b, 0x34, 0x24, 0x5d, 0xe9, 0x00, 0x00, 0x00, 0x00};
  EXPECT_EQ(at(body, 3), FrameBuilt::kWhole);
  EXPECT_EQ(at(body, 4), FrameBuilt::kWhole);
}

// A 16-byte frame (return address and saved rbp) is whole once rbp is pushed and has no add
// before its pop.
TEST(FrameConstruction, SixteenByteFrame) {
  const Bytes prologue = {0x55, 0x41, 0x81, 0x7f, 0x20, 0x01, 0x00, 0x00, 0x00};
  EXPECT_EQ(PrologueAt(prologue, 1, 16), FrameBuilt::kWhole);
  EXPECT_EQ(PrologueAt(prologue, 1, 32), FrameBuilt::kRbpPushed);
  EXPECT_EQ(PrologueAt(prologue, 9, 16), FrameBuilt::kWhole);
  EXPECT_EQ(PrologueAt(prologue, 9, 32), FrameBuilt::kUnknown);  // no sub: not described
  const Bytes ret = {0x8b, 0xc6, 0x5d, 0xc3};
  const std::span<const uint8_t> all(ret);
  EXPECT_EQ(BodyState(all.first(2), all.subspan(2), 16), FrameBuilt::kRbpPushed);
  EXPECT_EQ(BodyState(all.first(2), all.subspan(2), 32), FrameBuilt::kWhole);
  EXPECT_EQ(BodyState(all.first(3), all.subspan(3), 16), FrameBuilt::kNothing);
}

}  // namespace
}  // namespace vtctx::reader
