// Access-model classification on the fixture libraries the suite builds (one per TLS model) and on
// hand-made inputs for the rejections.
#include <elf.h>
#include <gtest/gtest.h>

#include "target/elfSymbols.h"
#include "target/tlsModel.h"
#include "vtctx/record.h"

namespace vtctx::reader {
namespace {

ElfTlsExport Read(const char* path) {
  auto elf = ReadTlsExportFromFile(path, VTCTX_TLS_SYMBOL);
  EXPECT_TRUE(elf.ok()) << elf.status();
  return elf.ok() ? *elf : ElfTlsExport{};
}

TEST(ElfSymbols, FindsTheExportedSymbolAndItsRelocations) {
  ElfTlsExport elf = Read(CTXFIX_TLSDESC);
  ASSERT_TRUE(elf.symbol.has_value());
  EXPECT_EQ(elf.symbol->type, STT_TLS);
  EXPECT_EQ(elf.symbol->size, 8u);
  ASSERT_TRUE(elf.tls.has_value());
  EXPECT_LT(elf.symbol->value, elf.tls->memsz);
  ASSERT_EQ(elf.relocs.size(), 1u);
  EXPECT_EQ(elf.relocs[0].type, static_cast<uint32_t>(R_X86_64_TLSDESC));
  EXPECT_FALSE(elf.loads.empty());
}

TEST(ElfSymbols, IgnoresUndefinedReferences) {
  // The writer executable references nothing by name, and libc does not define the symbol.
  auto elf = ReadTlsExportFromFile(CTXFIX_WRITER_DL, VTCTX_TLS_SYMBOL);
  ASSERT_TRUE(elf.ok()) << elf.status();
  EXPECT_FALSE(elf->symbol.has_value());
}

TEST(ElfSymbols, RejectsNonElf) {
  const uint8_t junk[] = {'#', '!', '/', 'b', 'i', 'n'};
  EXPECT_FALSE(ReadTlsExportFromMemory(junk, VTCTX_TLS_SYMBOL).ok());
}

TEST(PlanAccess, ModelPerFixture) {
  struct Case {
    const char* path;
    bool exe;
    AccessModel model;
  } cases[] = {
      {CTXFIX_TLSDESC, false, AccessModel::kTlsDesc},
      {CTXFIX_GD, false, AccessModel::kGeneralDynamic},
      {CTXFIX_IE, false, AccessModel::kInitialExec},
      {CTXFIX_WRITER_PIE, true, AccessModel::kLocalExec},
      {CTXFIX_WRITER_NOPIE, true, AccessModel::kLocalExec},
  };
  for (const Case& c : cases) {
    auto plan = PlanAccess(Read(c.path), c.exe, HostArch());
    ASSERT_TRUE(plan.ok()) << c.path << ": " << plan.status();
    EXPECT_EQ(plan->model, c.model) << c.path;
  }
}

TEST(PlanAccess, LocalExecOffsetFollowsGlibcLayout) {
  // ctxLib.c: 24 bytes of .tdata, then .tbss aligned to 64, the symbol not at offset 0. The
  // compiler orders the variables: GCC 12 puts the symbol at 0x68 of memsz 0x70, clang 14 at 0x40
  // of 0xa8. PT_TLS starts 64-aligned, so the block is roundup(memsz, 64) below the thread pointer
  // (0x80 and 0xc0).
  ElfTlsExport elf = Read(CTXFIX_WRITER_PIE);
  ASSERT_TRUE(elf.symbol.has_value() && elf.tls.has_value());
  ASSERT_EQ(elf.tls->align, 64u);
  ASSERT_EQ(elf.tls->vaddr % 64, 0u);
  ASSERT_GE(elf.symbol->value, 24u);
  const uint64_t block = (elf.tls->memsz + 63) & ~uint64_t{63};
  auto plan = PlanAccess(elf, true, HostArch());
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->tp_offset, static_cast<int64_t>(elf.symbol->value - block));
}

TEST(PlanAccess, ExecutableTpOffsetKeepsTheAlignmentPhase) {
  // A PT_TLS starting 0x10 past a 64-byte boundary: glibc keeps that phase (firstbyte =
  // -0x10 & 63 = 0x30), so the block starts roundup(0x70 - 0x30, 64) + 0x30 = 0x70 below tp,
  // which is again 0x10 past a 64-byte boundary when tp is aligned.
  TlsSegment tls{0x1010, 0, 0x70, 64};
  EXPECT_EQ(HostArch().executable_tp_offset(tls, 0), -(0x40 + 0x30));
  TlsSegment aligned{0x1000, 0, 0x70, 64};
  EXPECT_EQ(HostArch().executable_tp_offset(aligned, 8), 8 - 0x80);
}

TEST(PlanAccess, HiddenAliasAccessIsUnsupported) {
  auto plan = PlanAccess(Read(CTXFIX_HIDDEN), false, HostArch());
  EXPECT_TRUE(absl::IsUnimplemented(plan.status())) << plan.status();
}

TEST(PlanAccess, LibraryWithoutRelocationIsNotLocalExec) {
  // Local-exec is only valid for the main executable (module 1).
  auto plan = PlanAccess(Read(CTXFIX_WRITER_PIE), false, HostArch());
  EXPECT_TRUE(absl::IsUnimplemented(plan.status())) << plan.status();
}

TEST(PlanAccess, RejectsWrongTypeSizeOrMachine) {
  ElfTlsExport elf = Read(CTXFIX_TLSDESC);
  ElfTlsExport wrong_size = elf;
  wrong_size.symbol->size = 16;
  EXPECT_TRUE(absl::IsUnimplemented(PlanAccess(wrong_size, false, HostArch()).status()));
  ElfTlsExport wrong_type = elf;
  wrong_type.symbol->type = STT_OBJECT;
  EXPECT_TRUE(absl::IsUnimplemented(PlanAccess(wrong_type, false, HostArch()).status()));
  ElfTlsExport wrong_machine = elf;
  wrong_machine.machine = EM_AARCH64;
  EXPECT_TRUE(absl::IsUnimplemented(PlanAccess(wrong_machine, false, HostArch()).status()));
}

TEST(PlanAccess, PrefersTlsDescOverOtherRelocations) {
  ElfTlsExport elf = Read(CTXFIX_TLSDESC);
  elf.relocs.insert(elf.relocs.begin(), SymbolReloc{0x3000, R_X86_64_TPOFF64, 0});
  auto plan = PlanAccess(elf, false, HostArch());
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->model, AccessModel::kTlsDesc);
}

}  // namespace
}  // namespace vtctx::reader
