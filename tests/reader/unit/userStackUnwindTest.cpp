// The user-stack unwinding rules (hotspot/userStackUnwind.h) on stack fixtures laid out as
// HotSpot lays out its frames on x86_64: compiled frames by their code blob's frame size,
// interpreted frames by rbp, frameless stubs, native frames by frame pointer; and on hostile
// stacks (loops, frames past the copy, absurd sizes), which must stop, never loop or read out of
// the copy.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <vector>

#include "hotspot/userStackUnwind.h"

namespace vtctx::reader {
namespace {

constexpr uint64_t kBase = 0x7f0000100000;  // the copy's first byte (a page boundary)

// Code ranges: [start, end) with their facts; native code separately.
constexpr uint64_t kInterpreter = 0x7e0000001000;  // 4 KiB of interpreter code
constexpr uint64_t kLeafNm = 0x7e0000010000;       // nmethod, 48-byte frame, complete at +0x20
constexpr uint64_t kMidNm = 0x7e0000020000;        // nmethod, 32-byte frame
constexpr uint64_t kCallStub = 0x7e0000030000;     // frameless BufferBlob (the call stub)
constexpr uint64_t kLibjvm = 0x7d0000000000;       // native

class FakeCode final : public CodeLookup {
 public:
  std::optional<CodeFacts> JavaCode(uint64_t pc) override {
    if (pc >= kInterpreter && pc < kInterpreter + 0x1000) return CodeFacts{CodeKind::kInterpreter};
    if (pc >= kLeafNm && pc < kLeafNm + 0x400) {
      return CodeFacts{CodeKind::kCompiled, 48, kLeafNm + 0x20};
    }
    if (pc >= kMidNm && pc < kMidNm + 0x400) return CodeFacts{CodeKind::kCompiled, 32, 0};
    if (pc >= kCallStub && pc < kCallStub + 0x400) return CodeFacts{CodeKind::kFrameless};
    return std::nullopt;
  }
  bool NativeCode(uint64_t pc) override { return pc >= kLibjvm && pc < kLibjvm + 0x100000; }
  FrameBuilt InterruptedFrame(uint64_t /*pc*/, const CodeFacts& /*facts*/) override {
    return built;
  }
  std::optional<FrameState> NativeCfiCaller(const FrameState& /*frame*/, uint64_t at,
                                            const StackCopy& /*copy*/) override {
    auto it = cfi.find(at);
    return it != cfi.end() ? std::optional<FrameState>(it->second) : std::nullopt;
  }
  std::optional<uint64_t> ContinuationEntryBytes() override { return entry_bytes; }
  std::optional<uint64_t> entry_bytes;
  std::map<uint64_t, FrameState> cfi;     // native frames with call-frame information, by lookup pc
  FrameBuilt built = FrameBuilt::kWhole;  // what the code at an interrupted compiled pc says
};

// A stack copy built word by word at addresses from kBase.
class StackFixture {
 public:
  explicit StackFixture(size_t bytes = 4096) : bytes_(bytes, 0) {}
  void Put(uint64_t address, uint64_t value) {
    ASSERT_GE(address, kBase);
    ASSERT_LE(address - kBase + 8, bytes_.size());
    std::memcpy(bytes_.data() + (address - kBase), &value, 8);
  }
  StackCopy copy(bool cut = false) const { return {kBase, bytes_, cut}; }

 private:
  std::vector<uint8_t> bytes_;
};

TEST(UserStackUnwind, CompiledFrameBySize) {
  StackFixture s;
  const uint64_t sp = kBase + 0x100;
  s.Put(sp + 48 - 8, kMidNm + 0x50);  // return address
  s.Put(sp + 48 - 16, 0x1234);        // the caller's rbp, saved
  const std::optional<FrameState> caller = CompiledCaller({kLeafNm + 0x40, sp, 0}, 48, s.copy());
  ASSERT_TRUE(caller);
  EXPECT_EQ(*caller, (FrameState{kMidNm + 0x50, sp + 48, 0x1234}));
  // Sizes no frame has, and a frame past the copy's end.
  EXPECT_FALSE(CompiledCaller({kLeafNm, sp, 0}, 8, s.copy()));
  EXPECT_FALSE(CompiledCaller({kLeafNm, sp, 0}, 44, s.copy()));
  EXPECT_FALSE(CompiledCaller({kLeafNm, sp, 0}, 1 << 20, s.copy()));
  EXPECT_FALSE(CompiledCaller({kLeafNm, kBase + 4096 - 16, 0}, 48, s.copy()));
}

TEST(UserStackUnwind, InterpretedFrameByRbp) {
  StackFixture s;
  const uint64_t fp = kBase + 0x200;
  s.Put(fp, 0x4444);                   // saved rbp
  s.Put(fp + 8, kInterpreter + 0x80);  // return address
  s.Put(fp - 8, fp + 16 + 32);         // interpreter_frame_sender_sp: a c2i adapter moved it
  std::optional<FrameState> caller =
      InterpretedCaller({kInterpreter + 0x10, fp - 64, fp}, s.copy());
  ASSERT_TRUE(caller);
  EXPECT_EQ(*caller, (FrameState{kInterpreter + 0x80, fp + 48, 0x4444}));
  // A saved sender sp below the frame's end is stale: the frame's end is used.
  s.Put(fp - 8, fp - 100);
  caller = InterpretedCaller({kInterpreter + 0x10, fp - 64, fp}, s.copy());
  ASSERT_TRUE(caller);
  EXPECT_EQ(caller->sp, fp + 16);
  // rbp below sp is not this frame's.
  EXPECT_FALSE(InterpretedCaller({kInterpreter, fp + 8, fp}, s.copy()));
}

TEST(UserStackUnwind, FramelessAndPushedFpLayouts) {
  StackFixture s;
  const uint64_t sp = kBase + 0x300;
  s.Put(sp, 0x5555);
  s.Put(sp + 8, kMidNm + 0x10);
  EXPECT_EQ(*FramelessCaller({kCallStub, sp, 7}, s.copy()), (FrameState{0x5555, sp + 8, 7}));
  EXPECT_EQ(*PushedFpCaller({kCallStub, sp, 7}, s.copy()),
            (FrameState{kMidNm + 0x10, sp + 16, 0x5555}));
}

// interpreted leaf -> compiled (c2i in between) -> compiled -> call stub -> libjvm (rbp 0: root).
TEST(UserStackUnwind, WholeMixedStack) {
  StackFixture s;
  const uint64_t sp0 = kBase + 0x80;
  const uint64_t fp0 = kBase + 0x100;  // interpreted frame
  s.Put(fp0, 0);                       // compiled code's rbp: anything
  s.Put(fp0 + 8, kLeafNm + 0x60);      // returns into the leaf nmethod (a compiled caller)
  s.Put(fp0 - 8, fp0 + 16 + 16);       // the compiled caller's sp (c2i moved 16 bytes)
  const uint64_t sp1 = fp0 + 32;       // compiled frame of 48 bytes
  s.Put(sp1 + 40, kMidNm + 0x30);
  s.Put(sp1 + 32, 0x9999);
  const uint64_t sp2 = sp1 + 48;      // compiled frame of 32 bytes
  const uint64_t stub_fp = sp2 + 64;  // the call stub's rbp frame, above its locals
  s.Put(sp2 + 24, kCallStub + 0x20);
  s.Put(sp2 + 16, stub_fp);
  s.Put(stub_fp, kBase + 0x800);  // libjvm's rbp
  s.Put(stub_fp + 8, kLibjvm + 0x100);
  s.Put(kBase + 0x800, 0);  // libjvm's caller: rbp chain ends
  s.Put(kBase + 0x808, kLibjvm + 0x200);
  s.Put(fp0 - 24, 0xaaa0);  // the interpreted frame's Method*
  s.Put(fp0 - 64, 0xbbb0);  // and its bytecode pointer
  FakeCode code;
  const UnwoundStack u = UnwindUserStack({kInterpreter + 0x40, sp0, fp0}, s.copy(), code, 127);
  EXPECT_EQ(u.pcs, (std::vector<uint64_t>{kInterpreter + 0x40, kLeafNm + 0x60, kMidNm + 0x30,
                                          kCallStub + 0x20, kLibjvm + 0x100, kLibjvm + 0x200}));
  EXPECT_EQ(u.end, UnwindEnd::kRoot);
  // Kept for the interpreted frame only, one entry per frame.
  EXPECT_EQ(u.interpreted, (std::vector<InterpretedSlots>{{0xaaa0, 0xbbb0}, {}, {}, {}, {}, {}}));
}

// The interrupted compiled frame as the code at its pc says it is built (frameConstruction.h):
// each state reads its caller from its own slots. The stack is the one that gave impossible
// stacks before: the frame allocated (after its sub) with a stale return address into another
// method at sp, left by an earlier call; only the frame-size rule reads the real caller there.
TEST(UserStackUnwind, InterruptedCompiledFrameByItsCode) {
  const uint64_t sp = kBase + 0x100;
  struct Case {
    FrameBuilt built;
    std::vector<uint64_t> pcs;  // what the walk gives: the frame and its caller
  };
  for (const Case& c : {
           Case{FrameBuilt::kNothing, {kLeafNm + 0x4, kCallStub + 0x8}},
           Case{FrameBuilt::kRbpPushed, {kLeafNm + 0x4, kMidNm + 0x44}},
           Case{FrameBuilt::kWhole, {kLeafNm + 0x4, kMidNm + 0x88}},
           Case{FrameBuilt::kWholeRbpLive, {kLeafNm + 0x4, kMidNm + 0x88}},
           Case{FrameBuilt::kUnknown, {kLeafNm + 0x4}},
       }) {
    StackFixture s;
    s.Put(sp, kCallStub + 0x8);  // stale: a return address of an earlier call
    s.Put(sp + 8, kMidNm + 0x44);
    s.Put(sp + 32, 0x4242);         // the caller's rbp, saved by the prologue
    s.Put(sp + 40, kMidNm + 0x88);  // the real return address (48-byte frame)
    FakeCode code;
    code.built = c.built;
    const UnwoundStack u = UnwindUserStack({kLeafNm + 0x4, sp, 0x77}, s.copy(), code, 2);
    EXPECT_EQ(u.pcs, c.pcs) << static_cast<int>(c.built);
    if (c.built == FrameBuilt::kUnknown) {
      EXPECT_EQ(u.end, UnwindEnd::kStopped);  // frames missing, and said
    }
    EXPECT_TRUE(u.interpreted.empty());  // no interpreted frame: nothing kept
  }
  // The caller's rbp each state leaves: the caller here is native code, walked by rbp, so the
  // third pc says which rbp it got.
  struct FpCase {
    FrameBuilt built;
    uint64_t third;
  };
  for (const FpCase& c : {FpCase{FrameBuilt::kRbpPushed, kLibjvm + 0x1400},
                          FpCase{FrameBuilt::kWhole, kLibjvm + 0x1500},
                          FpCase{FrameBuilt::kWholeRbpLive, kLibjvm + 0x1600}}) {
    StackFixture s;
    s.Put(sp, kBase + 0x400);  // rbp-pushed: the caller's rbp
    s.Put(sp + 8, kLibjvm + 0x44);
    s.Put(sp + 32, kBase + 0x500);  // whole: the saved rbp slot
    s.Put(sp + 40, kLibjvm + 0x88);
    s.Put(kBase + 0x408, kLibjvm + 0x1400);
    s.Put(kBase + 0x508, kLibjvm + 0x1500);
    s.Put(kBase + 0x608, kLibjvm + 0x1600);
    FakeCode code;
    code.built = c.built;
    const UnwoundStack u = UnwindUserStack({kLeafNm + 0x4, sp, kBase + 0x600}, s.copy(), code, 3);
    ASSERT_EQ(u.pcs.size(), 3u) << static_cast<int>(c.built);
    EXPECT_EQ(u.pcs[2], c.third) << static_cast<int>(c.built);
  }
}

// A compiled frame interrupted before its frame-complete offset (kLeafNm: +0x20) or in its epilogue
// runs the method's own code: no inlined scope applies; in its body it does.
TEST(UserStackUnwind, InnermostOwnCodeInEntryAndEpilogue) {
  struct Case {
    uint64_t pc;
    FrameBuilt built;
    bool own_code;
  };
  const uint64_t sp = kBase + 0x100;
  for (const Case& c : {Case{kLeafNm + 0x4, FrameBuilt::kNothing, true},
                        Case{kLeafNm + 0x10, FrameBuilt::kWhole, true},  // built, not complete
                        Case{kLeafNm + 0x40, FrameBuilt::kWhole, false},
                        Case{kLeafNm + 0x40, FrameBuilt::kRbpPushed, true},   // after add $F,%rsp
                        Case{kLeafNm + 0x40, FrameBuilt::kNothing, true}}) {  // after pop %rbp
    StackFixture s;
    s.Put(sp, kMidNm + 0x44);
    s.Put(sp + 8, kMidNm + 0x44);
    s.Put(sp + 40, kMidNm + 0x88);
    FakeCode code;
    code.built = c.built;
    const UnwoundStack u = UnwindUserStack({c.pc, sp, 0x77}, s.copy(), code, 2);
    EXPECT_EQ(u.innermost_own_code, c.own_code)
        << std::hex << c.pc << " " << static_cast<int>(c.built);
  }
  // A frame below the innermost is at a call: never its own code's.
  StackFixture s;
  s.Put(sp + 40, kLeafNm + 0x8);
  FakeCode code;
  EXPECT_FALSE(
      UnwindUserStack({kMidNm + 0x40, sp + 8, 0x77}, s.copy(), code, 2).innermost_own_code);
}

// A Java frame whose caller is not code stops the walk, counted as stopped (frames missing);
// a native frame whose rbp chain ends in garbage is the native end.
TEST(UserStackUnwind, StopsAndSaysWhy) {
  StackFixture s;
  const uint64_t sp = kBase + 0x100;
  s.Put(sp + 24, 0xbad);
  FakeCode code;
  UnwoundStack u = UnwindUserStack({kMidNm + 0x10, sp, 0}, s.copy(), code, 127);
  EXPECT_EQ(u.pcs, (std::vector<uint64_t>{kMidNm + 0x10}));
  EXPECT_EQ(u.end, UnwindEnd::kStopped);
  s.Put(sp + 0x48, 0xbad2);  // the native frame's "return address": no code
  u = UnwindUserStack({kLibjvm + 0x10, sp, sp + 0x40}, s.copy(), code, 127);
  EXPECT_EQ(u.end, UnwindEnd::kNativeEnd);
  u = UnwindUserStack({0x1000, sp, 0}, s.copy(), code, 127);  // the pc is no code
  EXPECT_EQ(u.end, UnwindEnd::kStopped);
}

// A native frame its file's CFI describes is unwound by it alone: an rbp of 0 there is a value
// (code without frame pointers uses rbp as a register), not the ABI's end of the stack; without
// CFI the same frame ends the walk.
TEST(UserStackUnwind, NativeFramesByCallFrameInformation) {
  StackFixture s;
  const uint64_t sp = kBase + 0x100;  // compiled frame of 32 bytes returning into libjvm
  s.Put(sp + 24, kLibjvm + 0x200);
  s.Put(sp + 16, 0);  // rbp 0
  FakeCode code;
  UnwoundStack u = UnwindUserStack({kMidNm + 0x20, sp, 0}, s.copy(), code, 127);
  EXPECT_EQ(u.pcs, (std::vector<uint64_t>{kMidNm + 0x20, kLibjvm + 0x200}));
  EXPECT_EQ(u.end, UnwindEnd::kRoot);
  code.cfi[kLibjvm + 0x1ff] = FrameState{kMidNm + 0x90, sp + 96, 0};  // looked up at the call
  s.Put(sp + 96 + 24, 0);  // the compiled caller's return address: 0 ends the walk
  u = UnwindUserStack({kMidNm + 0x20, sp, 0}, s.copy(), code, 127);
  EXPECT_EQ(u.pcs, (std::vector<uint64_t>{kMidNm + 0x20, kLibjvm + 0x200, kMidNm + 0x90}));
  EXPECT_EQ(u.end, UnwindEnd::kRoot);
}

// A frame-pointer chain that points at itself or backwards never makes a step: sp must rise.
TEST(UserStackUnwind, HostileLoopsEnd) {
  StackFixture s;
  const uint64_t fp = kBase + 0x100;
  s.Put(fp, fp);                  // saved rbp: itself
  s.Put(fp + 8, kLibjvm + 0x10);  // a return address into the same code
  FakeCode code;
  const UnwoundStack u = UnwindUserStack({kLibjvm + 0x10, fp - 8, fp}, s.copy(), code, 127);
  EXPECT_LE(u.pcs.size(), 3u);
  EXPECT_NE(u.end, UnwindEnd::kDepthLimited);
}

// Recursion deeper than the frame limit: the walk ends at it and says so.
TEST(UserStackUnwind, DepthLimit) {
  StackFixture s(32 * 1024);
  const uint64_t sp = kBase;
  for (uint64_t i = 0; i < 600; i++) {
    s.Put(sp + 32 * i + 24, kMidNm + 0x30);
    s.Put(sp + 32 * i + 16, 0);
  }
  FakeCode code;
  const UnwoundStack u = UnwindUserStack({kMidNm + 0x30, sp, 0}, s.copy(), code, 127);
  EXPECT_EQ(u.pcs.size(), 127u);
  EXPECT_EQ(u.end, UnwindEnd::kDepthLimited);
}

// A stack deeper than its copy: a walk that reaches the end of a copy cut at its size bound says
// so (the summary's stacks_copy_cut=); the same end in a copy that reached the stack's top is a
// stop (garbage, not truncation).
TEST(UserStackUnwind, CopyCutAtItsBound) {
  StackFixture s(4096);
  for (uint64_t i = 0; i < 4096 / 32; i++) {
    s.Put(kBase + 32 * i + 24, kMidNm + 0x30);
    s.Put(kBase + 32 * i + 16, 0);
  }
  FakeCode code;
  UnwoundStack u = UnwindUserStack({kMidNm + 0x30, kBase, 0}, s.copy(/*cut=*/true), code, 1000);
  EXPECT_EQ(u.pcs.size(), 4096u / 32 + 1);
  EXPECT_EQ(u.end, UnwindEnd::kCopyEnd);
  u = UnwindUserStack({kMidNm + 0x30, kBase, 0}, s.copy(/*cut=*/false), code, 1000);
  EXPECT_EQ(u.end, UnwindEnd::kStopped);
  // A caller not found for another reason, within the copy, is no cut.
  s.Put(kBase + 24, 0xbad);
  u = UnwindUserStack({kMidNm + 0x30, kBase, 0}, s.copy(/*cut=*/true), code, 1000);
  EXPECT_EQ(u.end, UnwindEnd::kStopped);
}

// A yielded virtual thread's bottom thawed frame returns into the return barrier (a frameless
// stub) with a saved rbp that is not enterSpecial's: the ContinuationEntry's size above the
// barrier's sp is enterSpecial's rbp, whose caller is the carrier's Continuation.run.
TEST(UserStackUnwind, ContinuationReturnBarrier) {
  StackFixture s;
  const uint64_t sp = kBase + 0x100;  // compiled frame of 32 bytes, the bottom thawed one
  s.Put(sp + 24, kCallStub + 0x80);   // patched: returns into the barrier
  s.Put(sp + 16, 0x42);               // a saved rbp leading nowhere
  const uint64_t entry = sp + 32;     // the ContinuationEntry (48 bytes, 16-aligned)
  s.Put(entry + 48, kBase + 0x400);   // enterSpecial's saved rbp
  s.Put(entry + 56, kMidNm + 0x90);   // the return into Continuation.run
  FakeCode code;
  code.entry_bytes = 48;  // JDK 25: sizeof(ContinuationEntry) from VMStructs
  UnwoundStack u = UnwindUserStack({kMidNm + 0x20, sp, 0}, s.copy(), code, 127);
  ASSERT_GE(u.pcs.size(), 3u);
  EXPECT_EQ(u.pcs[2], kMidNm + 0x90);
  // Java 21 names no ContinuationEntry size: the smallest size whose return address is Java code
  // is enterSpecial's. The entry's fields are pointers into the stack, oops and counts, never
  // code; a stub's address (not Java) is not taken either.
  code.entry_bytes.reset();
  s.Put(entry + 8, kBase + 0x700);      // a pointer into the stack
  s.Put(entry + 24, 0x6a0000000);       // an oop
  s.Put(entry + 40, kCallStub + 0x10);  // a stub: not Java code
  u = UnwindUserStack({kMidNm + 0x20, sp, 0}, s.copy(), code, 127);
  ASSERT_GE(u.pcs.size(), 3u);
  EXPECT_EQ(u.pcs[2], kMidNm + 0x90);
  s.Put(entry + 56, 0x1);  // no Java return address at any size: stopped, and said
  u = UnwindUserStack({kMidNm + 0x20, sp, 0}, s.copy(), code, 127);
  EXPECT_EQ(u.pcs.size(), 2u);
  EXPECT_EQ(u.end, UnwindEnd::kStopped);
}

TEST(StackCopy, ReadsOnlyInside) {
  std::vector<uint8_t> bytes(16, 1);
  const StackCopy c{kBase, bytes};
  EXPECT_TRUE(c.Word(kBase));
  EXPECT_TRUE(c.Word(kBase + 8));
  EXPECT_FALSE(c.Word(kBase + 9));
  EXPECT_FALSE(c.Word(kBase - 1));
  EXPECT_FALSE(c.Word(UINT64_MAX - 3));
}

}  // namespace
}  // namespace vtctx::reader
