// Resolution from the words the dynamic linker wrote, and slot computation, on fake memory: every
// branch of the TLSDESC/GD/IE interpretation and of the DTV walk, including the error classes the
// CLI maps to distinct exit codes. Last, ResolveProcess on this process as --wait polls it.
#include <dlfcn.h>
#include <elf.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "fakeMemory.h"
#include "target/processMemory.h"
#include "target/tlsResolver.h"

namespace vtctx::reader {
namespace {

constexpr uint64_t kBias = 0x7f0000000000;
constexpr uint64_t kGot = 0x4000;

ElfTlsExport LibraryWithTls(uint64_t memsz = 0x70) {
  ElfTlsExport elf;
  elf.machine = EM_X86_64;
  elf.elf_type = ET_DYN;
  elf.tls = TlsSegment{0x3e00, 0x18, memsz, 0x40};
  elf.symbol = TlsSymbol{0x68, 8, 5, STT_TLS, STB_GLOBAL, STV_DEFAULT};
  return elf;
}

AccessPlan Plan(AccessModel model, int64_t addend = 0) { return {model, kGot, addend, 0}; }

// The GOT as the dynamic linker left it: the plan's two words (TLSDESC: resolver, argument; GD:
// module id, offset).
FakeMemory GotWords(uint64_t first, uint64_t second) {
  FakeMemory mem;
  mem.PutU64(kBias + kGot, first);
  mem.PutU64(kBias + kGot + 8, second);
  return mem;
}

absl::StatusOr<vtctx_slot_recipe> Resolve(FakeMemory& mem, AccessModel model, int64_t addend = 0) {
  return ResolveRecipe(LibraryWithTls(), Plan(model, addend), kBias, mem, HostArch());
}

vtctx_slot_recipe DtvRecipe(uint64_t module, uint64_t offset, uint64_t generation) {
  vtctx_slot_recipe r{};
  r.kind = VTCTX_SLOT_DTV;
  r.dtv_entry_size = 16;
  r.dtv_ptr_offset = 8;
  r.module_id = module;
  r.module_offset = offset;
  r.min_generation = generation;
  return r;
}

// A dynamic-TLS recipe: the walk through the DTV that tlsSlot.bpf.h does.
void ExpectDtvRecipe(const vtctx_slot_recipe& got, const vtctx_slot_recipe& want) {
  EXPECT_EQ(got.kind, want.kind);
  EXPECT_EQ(got.module_id, want.module_id);
  EXPECT_EQ(got.module_offset, want.module_offset);
  EXPECT_EQ(got.min_generation, want.min_generation);
  EXPECT_EQ(got.dtv_ptr_offset, want.dtv_ptr_offset);
  EXPECT_EQ(got.dtv_entry_size, want.dtv_entry_size);
}

TEST(ResolveRecipe, TlsDescStaticOffset) {
  // The resolver (_dl_tlsdesc_return), its argument: the tp offset.
  FakeMemory mem = GotWords(0x7f00dead0000, static_cast<uint64_t>(-152));
  auto r = Resolve(mem, AccessModel::kTlsDesc);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->kind, VTCTX_SLOT_STATIC);
  EXPECT_EQ(r->tp_offset, -152);
}

TEST(ResolveRecipe, TlsDescAddendIsRemoved) {
  FakeMemory mem = GotWords(1, static_cast<uint64_t>(-144));  // -152 + addend 8
  auto r = Resolve(mem, AccessModel::kTlsDesc, 8);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->tp_offset, -152);
}

TEST(ResolveRecipe, TlsDescDynamicArgument) {
  const uint64_t arg = 0x5555aaaa0000;
  FakeMemory mem = GotWords(0x7f00dead0010, arg);  // _dl_tlsdesc_dynamic, its argument
  mem.PutU64(arg, 3);                              // module id
  mem.PutU64(arg + 8, 0x68);                       // offset
  mem.PutU64(arg + 16, 7);                         // generation
  auto r = Resolve(mem, AccessModel::kTlsDesc);
  ASSERT_TRUE(r.ok()) << r.status();
  ExpectDtvRecipe(*r, DtvRecipe(3, 0x68, 7));
}

TEST(ResolveRecipe, GeneralDynamicPair) {
  FakeMemory mem = GotWords(4, 0x68);
  auto r = Resolve(mem, AccessModel::kGeneralDynamic);
  ASSERT_TRUE(r.ok()) << r.status();
  ExpectDtvRecipe(*r, DtvRecipe(4, 0x68, 0));  // no generation in the GOT pair
}

TEST(ResolveRecipe, InitialExec) {
  FakeMemory mem;
  mem.PutU64(kBias + kGot, static_cast<uint64_t>(-0x98));
  auto r = Resolve(mem, AccessModel::kInitialExec);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->kind, VTCTX_SLOT_STATIC);
  EXPECT_EQ(r->tp_offset, -0x98);
}

// A GOT the dynamic linker has not finished (Unavailable: the caller retries later) or that holds
// what no glibc writes (Unimplemented: the caller gives up on this library).
TEST(ResolveRecipe, UnfinishedOrImplausibleGotIsRefused) {
  const uint64_t arg = 0x5555aaaa0000;
  FakeMemory outside_block = GotWords(1, arg);
  outside_block.PutU64(arg, 2);
  outside_block.PutU64(arg + 8, 0x1000);  // beyond PT_TLS memsz
  outside_block.PutU64(arg + 16, 1);
  FakeMemory ie_unfilled;
  ie_unfilled.PutU64(kBias + kGot, 0);
  struct Case {
    const char* what;
    FakeMemory mem;
    AccessModel model;
    absl::StatusCode code;
  };
  const Case cases[] = {
      {"unrelocated descriptor", GotWords(0, 0), AccessModel::kTlsDesc,
       absl::StatusCode::kUnavailable},
      {"positive static offset (x86: the block lies below tp)", GotWords(1, 152),
       AccessModel::kTlsDesc, absl::StatusCode::kUnimplemented},
      {"dynamic argument outside the block", outside_block, AccessModel::kTlsDesc,
       absl::StatusCode::kUnimplemented},
      {"unreadable dynamic argument", GotWords(1, arg), AccessModel::kTlsDesc,
       absl::StatusCode::kUnimplemented},
      {"general dynamic, module 0", GotWords(0, 0), AccessModel::kGeneralDynamic,
       absl::StatusCode::kUnavailable},
      {"initial exec, offset 0", ie_unfilled, AccessModel::kInitialExec,
       absl::StatusCode::kUnavailable},
  };
  for (const Case& c : cases) {
    FakeMemory mem = c.mem;
    EXPECT_EQ(Resolve(mem, c.model).status().code(), c.code) << c.what;
  }
}

TEST(ResolveRecipe, UnreadableGotIsAnError) {
  FakeMemory mem;
  auto r = Resolve(mem, AccessModel::kInitialExec);
  EXPECT_FALSE(r.ok());
}

// --- SlotAddress: the same walk as tlsSlot.bpf.h -----------------------------------------------

constexpr uint64_t kTp = 0x7f1234567000;
constexpr uint64_t kDtv = 0x5555bbbb0010;

// A glibc DTV: dtv[-1] = length, dtv[0] = generation, dtv[i] = {block, to_free}.
FakeMemory MemoryWithDtv(uint64_t length, uint64_t generation, uint64_t module, uint64_t block) {
  FakeMemory mem;
  mem.PutU64(kTp + 8, kDtv);
  mem.PutU64(kDtv - 16, length);
  mem.PutU64(kDtv, generation);
  mem.PutU64(kDtv + 16 * module, block);
  return mem;
}

TEST(SlotAddress, Static) {
  FakeMemory mem;
  vtctx_slot_recipe r{};
  r.kind = VTCTX_SLOT_STATIC;
  r.tp_offset = -152;
  auto slot = SlotAddress(r, kTp, mem);
  ASSERT_TRUE(slot.ok());
  EXPECT_EQ(*slot, kTp - 152);
}

TEST(SlotAddress, DynamicWalksTheDtv) {
  FakeMemory mem = MemoryWithDtv(15, 7, 3, 0x5555cccc0000);
  auto slot = SlotAddress(DtvRecipe(3, 0x68, 7), kTp, mem);
  ASSERT_TRUE(slot.ok()) << slot.status();
  EXPECT_EQ(*slot, 0x5555cccc0068u);
}

TEST(SlotAddress, ShortDtvHasNoSlotYet) {
  FakeMemory mem = MemoryWithDtv(2, 7, 3, 0x5555cccc0000);
  EXPECT_TRUE(absl::IsNotFound(SlotAddress(DtvRecipe(3, 0, 0), kTp, mem).status()));
}

TEST(SlotAddress, OldGenerationHasNoSlotYet) {
  FakeMemory mem = MemoryWithDtv(15, 6, 3, 0x5555cccc0000);
  EXPECT_TRUE(absl::IsNotFound(SlotAddress(DtvRecipe(3, 0, 7), kTp, mem).status()));
  // Without a known generation (legacy GD) the entry is used.
  EXPECT_TRUE(SlotAddress(DtvRecipe(3, 0, 0), kTp, mem).ok());
}

TEST(SlotAddress, UnallocatedBlockHasNoSlot) {
  FakeMemory unallocated = MemoryWithDtv(15, 7, 3, ~0ull);
  EXPECT_TRUE(absl::IsNotFound(SlotAddress(DtvRecipe(3, 0, 7), kTp, unallocated).status()));
  FakeMemory null_block = MemoryWithDtv(15, 7, 3, 0);
  EXPECT_TRUE(absl::IsNotFound(SlotAddress(DtvRecipe(3, 0, 7), kTp, null_block).status()));
}

TEST(SlotAddress, UnreadableDtvIsAnError) {
  FakeMemory mem;
  auto slot = SlotAddress(DtvRecipe(3, 0, 7), kTp, mem);
  EXPECT_FALSE(slot.ok());
  EXPECT_FALSE(absl::IsNotFound(slot.status()));
}

// The --wait polling shape (agentWait.h): files without the symbol are read once; a library
// mapped later is read and resolves.
TEST(ResolveProcess, SkipsFilesKnownWithoutTheSymbolAndFindsANewLibrary) {
  absl::StatusOr<std::unique_ptr<ProcessMemory>> memory = ProcessMemory::Open(getpid());
  ASSERT_TRUE(memory.ok()) << memory.status();
  FilesWithoutSymbol skip;
  EXPECT_TRUE(absl::IsFailedPrecondition(ResolveProcess(getpid(), **memory, &skip).status()));
  const size_t known = skip.size();
  EXPECT_GE(known, 2u);  // at least this executable and libc
  EXPECT_TRUE(absl::IsFailedPrecondition(ResolveProcess(getpid(), **memory, &skip).status()));
  EXPECT_EQ(skip.size(), known);

  ASSERT_NE(dlopen(CTXFIX_TLSDESC, RTLD_NOW | RTLD_LOCAL), nullptr) << dlerror();
  absl::StatusOr<Resolution> resolved = ResolveProcess(getpid(), **memory, &skip);
  ASSERT_TRUE(resolved.ok()) << resolved.status();
  EXPECT_TRUE(resolved->modules.front().path.ends_with("/libctxfix_tlsdesc.so"))
      << resolved->modules.front().path;
}

}  // namespace
}  // namespace vtctx::reader
