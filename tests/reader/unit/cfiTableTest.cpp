// Native frames by call-frame information (target/cfiTable.h): the .eh_frame of
// libvtctx_stack_natives.so as GCC 12.2 (Debian 12) built it (-O2 -fomit-frame-pointer; section at
// 0x2040): a CIE, the PLT's FDE (CFA by expression), vtctx_burn_inner (no frame change),
// vtctx_burn_middle (push %rbx; sub $0x40) and vtctx_burn_outer (push %rbp as a plain register,
// push %rbx, sub $0x68); `readelf --debug-dump=frames-interp` printed the rows checked here.
// Then hostile sections: truncated, lengths past the end, programs that never end.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "target/cfiTable.h"

namespace vtctx::reader {
namespace {

constexpr uint64_t kEhFrameVaddr = 0x2040;
constexpr char kStackNativesEhFrame[] =
    "1400000000000000017a5200017810011b0c070890010000240000001c000000c0efffff40000000000e10460e"
    "184a0f0b770880003f1a3b2a332422000000001400000044000000d8efffff08000000000000000000000010000000"
    "5c00000090f0ffff3e000000000000001c00000070000000bcf0ffff5900000000410e1083024c0e5002470e10410e"
    "082800000090000000fcf0ffffb500000000410e108602570e188303520e800102850e18410e10410e080000001000"
    "0000bc00000090f1ffff0d0000000000000000000000";

std::vector<uint8_t> Bytes(const char* hex) {
  const std::string raw = absl::HexStringToBytes(hex);
  return {raw.begin(), raw.end()};
}

CfiTable Table() {
  static const std::vector<uint8_t> bytes = Bytes(kStackNativesEhFrame);
  absl::StatusOr<CfiTable> t = CfiTable::Parse(bytes, kEhFrameVaddr);
  EXPECT_TRUE(t.ok()) << t.status();
  return t.ok() ? *t : CfiTable();
}

TEST(CfiTable, RowsAsReadelfPrintsThem) {
  const CfiTable t = Table();
  struct Case {
    uint64_t pc;
    CfiRow::Cfa cfa;
    int32_t cfa_offset;
    bool rbp_saved;
    int32_t rbp_offset;
  };
  for (const Case& c : {
           Case{0x1130, CfiRow::Cfa::kRsp, 8, false, 0},     // burn_inner: nothing pushed
           Case{0x1170, CfiRow::Cfa::kRsp, 8, false, 0},     // burn_middle's entry
           Case{0x1171, CfiRow::Cfa::kRsp, 16, false, 0},    // after push %rbx
           Case{0x1180, CfiRow::Cfa::kRsp, 80, false, 0},    // after sub $0x40
           Case{0x11c4, CfiRow::Cfa::kRsp, 16, false, 0},    // epilogue
           Case{0x11c5, CfiRow::Cfa::kRsp, 8, false, 0},     // at ret
           Case{0x11d1, CfiRow::Cfa::kRsp, 16, true, -16},   // burn_outer after push %rbp
           Case{0x1200, CfiRow::Cfa::kRsp, 128, true, -16},  // its body
           Case{0x1284, CfiRow::Cfa::kRsp, 8, true, -16},    // its last row holds to its end
       }) {
    const CfiRow* row = t.Find(c.pc);
    ASSERT_NE(row, nullptr) << std::hex << c.pc;
    EXPECT_EQ(row->cfa, c.cfa) << std::hex << c.pc;
    EXPECT_EQ(row->cfa_offset, c.cfa_offset) << std::hex << c.pc;
    EXPECT_EQ(row->rbp_saved, c.rbp_saved) << std::hex << c.pc;
    if (c.rbp_saved) {
      EXPECT_EQ(row->rbp_offset, c.rbp_offset) << std::hex << c.pc;
    }
    EXPECT_EQ(row->ra_offset, -8) << std::hex << c.pc;
  }
  // The PLT's CFA is an expression; between FDEs and past the last one nothing is described.
  for (uint64_t pc : {0x1030u, 0x1100u, 0x1285u, 0x129du, 0x5000u}) {
    const CfiRow* row = t.Find(pc);
    EXPECT_TRUE(row == nullptr || row->cfa == CfiRow::Cfa::kUnknown) << std::hex << pc;
  }
  EXPECT_EQ(t.Find(0x1000), nullptr);
}

// burn_inner <- burn_middle <- burn_outer, unwound from a stack laid out as their code does.
TEST(CfiTable, CallerFromTheCopy) {
  const CfiTable t = Table();
  const uint64_t base = 0x7f0000100000;
  std::vector<uint8_t> stack(1024, 0);
  auto put = [&](uint64_t address, uint64_t value) {
    std::memcpy(stack.data() + (address - base), &value, 8);
  };
  const StackCopy copy{base, stack};
  const uint64_t sp_middle = base + 0x100;   // in burn_middle's body: CFA = sp + 80
  put(sp_middle + 72, 0x7e00000011f5);       // return into burn_outer
  const uint64_t sp_outer = sp_middle + 80;  // CFA = sp + 128, rbp at CFA - 16
  put(sp_outer + 120, 0x7e0000005555);       // its return address
  put(sp_outer + 112, 0x4242);               // the rbp it saved
  std::optional<FrameState> caller = CfiCaller(*t.Find(0x1190), {0x1190, sp_middle, 0x99}, copy);
  ASSERT_TRUE(caller);
  EXPECT_EQ(*caller, (FrameState{0x7e00000011f5, sp_middle + 80, 0x99}));  // rbp untouched
  caller = CfiCaller(*t.Find(0x1200), {0x11f5, sp_outer, 0x99}, copy);
  ASSERT_TRUE(caller);
  EXPECT_EQ(*caller, (FrameState{0x7e0000005555, sp_outer + 128, 0x4242}));
  // A CFA past the copy, and a row that describes nothing.
  EXPECT_FALSE(CfiCaller(*t.Find(0x1200), {0x11f5, base + 1000, 0}, copy));
  EXPECT_FALSE(CfiCaller(*t.Find(0x1030), {0x1030, sp_middle, 0}, copy));
}

// A CIE/FDE pair built here: the FDE marks the return address undefined (a thread's first
// frame, as glibc's clone3 does): its caller is pc 0, the end of the walk.
TEST(CfiTable, UndefinedReturnAddressIsTheRoot) {
  std::vector<uint8_t> s = Bytes(
      "14000000"
      "00000000"
      "01"
      "7a5200"
      "01"
      "78"
      "10"
      "01"
      "1b"  // CIE "zR", pcrel sdata4
      "0c0708"
      "9001"
      "0000"  // def_cfa rsp+8; ra at -8
      "14000000"
      "1c000000"  // FDE, its CIE 0x1c back
      "00000000"
      "10000000"
      "00"
      "0710"
      "0000000000"  // pc, range 16; undefined ra
      "00000000");
  // The FDE's pc_begin is pc-relative: make it 0x1000 from its field at 0x20 + 8.
  const int32_t rel = static_cast<int32_t>(0x1000 - (kEhFrameVaddr + 0x20));
  std::memcpy(s.data() + 0x20, &rel, 4);
  absl::StatusOr<CfiTable> t = CfiTable::Parse(s, kEhFrameVaddr);
  ASSERT_TRUE(t.ok()) << t.status();
  const CfiRow* row = t->Find(0x1004);
  ASSERT_NE(row, nullptr);
  EXPECT_TRUE(row->outermost);
  const std::vector<uint8_t> stack(64, 0);
  const std::optional<FrameState> caller =
      CfiCaller(*row, {0x1004, 0x7f0000000000, 0}, StackCopy{0x7f0000000000, stack});
  ASSERT_TRUE(caller);
  EXPECT_EQ(caller->pc, 0u);
}

TEST(CfiTable, HostileSectionsAreRefusedOrBounded) {
  const std::vector<uint8_t> good = Bytes(kStackNativesEhFrame);
  // Every truncation parses or is refused; none reads past its bytes (ASan checks).
  for (size_t n = 0; n < good.size(); ++n) {
    (void)CfiTable::Parse(std::span<const uint8_t>(good.data(), n), kEhFrameVaddr);
  }
  // An entry whose length runs past the section.
  std::vector<uint8_t> bad = good;
  bad[0] = 0xf0;
  EXPECT_FALSE(CfiTable::Parse(bad, kEhFrameVaddr).ok());
  // A 64-bit length past the section.
  EXPECT_FALSE(CfiTable::Parse(Bytes("ffffffff00000000000000f0"), kEhFrameVaddr).ok());
  // remember_state without end, restore_state without remember: refused, not looped.
  std::vector<uint8_t> program = good;
  program[0x6c + 0x11] = 0x0b;  // burn_middle's first instruction -> restore_state
  EXPECT_FALSE(CfiTable::Parse(program, kEhFrameVaddr).ok());
}

}  // namespace
}  // namespace vtctx::reader
