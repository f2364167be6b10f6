// What bounds the reader's work on data a target shapes: ELF files read by pread with their
// sections and counts bounded (elfFile.h), function symbols that share names instead of copying
// them (elfFunctionSymbols.h), demangling within a bound (demangledName.h), one CFI table per
// file (nativeFrames.h), the address space a held process had (targetProcess.h), and the
// command's deadline (commandDeadline.h). reader.hostile_input tries each against the real reader.
#include <elf.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "commands/commandDeadline.h"
#include "output/demangledName.h"
#include "target/elfFunctionSymbols.h"
#include "target/elfSymbols.h"
#include "target/nativeFrames.h"
#include "target/procMaps.h"
#include "target/targetProcess.h"

namespace vtctx::reader {
namespace {

struct Section {
  uint32_t type;
  std::string bytes;
  uint64_t claimed = 0;  // sh_size when not the bytes' size
  uint32_t link = 0;
  uint64_t entsize = 0;
};

// An ELF64 image with `sections` (after the null one) laid out one after another from 0x100, then
// the section headers; `shnum` overrides the header's count.
std::string Elf(const std::vector<Section>& sections, int shnum = -1) {
  std::string body;
  std::vector<Elf64_Shdr> headers(1);
  for (const Section& s : sections) {
    Elf64_Shdr h{};
    h.sh_type = s.type;
    h.sh_offset = 0x100 + body.size();
    h.sh_addr = h.sh_offset;
    h.sh_size = s.claimed != 0 ? s.claimed : s.bytes.size();
    h.sh_link = s.link;
    h.sh_entsize = s.entsize;
    h.sh_addralign = 8;
    headers.push_back(h);
    body += s.bytes;
    body.resize((body.size() + 7) & ~size_t{7});
  }
  Elf64_Ehdr eh{};
  std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = ELFCLASS64;
  eh.e_ident[EI_DATA] = ELFDATA2LSB;
  eh.e_ident[EI_VERSION] = EV_CURRENT;
  eh.e_type = ET_DYN;
  eh.e_machine = EM_X86_64;
  eh.e_version = EV_CURRENT;
  eh.e_ehsize = sizeof eh;
  eh.e_shentsize = sizeof(Elf64_Shdr);
  eh.e_shoff = 0x100 + body.size();
  eh.e_shnum = static_cast<Elf64_Half>(shnum >= 0 ? shnum : static_cast<int>(headers.size()));
  std::string image(reinterpret_cast<const char*>(&eh), sizeof eh);
  image.resize(0x100);
  image += body;
  image.append(reinterpret_cast<const char*>(headers.data()), headers.size() * sizeof(Elf64_Shdr));
  return image;
}

std::string Symbol(uint32_t name, uint64_t value, uint64_t size) {
  Elf64_Sym s{};
  s.st_name = name;
  s.st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
  s.st_shndx = 1;
  s.st_value = value;
  s.st_size = size;
  return std::string(reinterpret_cast<const char*>(&s), sizeof s);
}

std::span<const uint8_t> Bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

class TempFile {
 public:
  TempFile() {
    char path[] = "/tmp/vtctx-bounded-XXXXXX";
    fd_ = mkstemp(path);
    path_ = path;
  }
  ~TempFile() {
    close(fd_);
    unlink(path_.c_str());
  }
  void Write(const std::string& bytes, off_t size) {
    ASSERT_EQ(pwrite(fd_, bytes.data(), bytes.size(), 0), static_cast<ssize_t>(bytes.size()));
    ASSERT_EQ(ftruncate(fd_, size), 0);
  }
  const std::string& path() const { return path_; }

 private:
  int fd_;
  std::string path_;
};

// 20,000 symbols with one 64 KiB name: one copy of the name, 24 bytes a symbol (was 1.3 GB).
TEST(FunctionSymbols, ShareTheirNamesAndCutLongOnes) {
  std::string strtab("\0", 1);
  strtab += std::string(64 << 10, 'L') + '\0';
  std::string symtab = std::string(sizeof(Elf64_Sym), '\0');
  for (uint64_t i = 0; i < 20000; ++i) symtab += Symbol(1, 0x1000 + 16 * i, 16);
  const std::string image = Elf({{SHT_STRTAB, strtab}, {SHT_SYMTAB, symtab, 0, 1, 24}});
  absl::StatusOr<FunctionSymbols> t = ReadFunctionSymbolsFromMemory(Bytes(image));
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->size(), 20000u);
  EXPECT_LT(t->bytes(), (64u << 10) + 20000u * 32 + 4096);
  const std::optional<FunctionSymbols::Symbol> s = t->Find(0x1000 + 16 * 777 + 3);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->start, 0x1000u + 16 * 777);
  EXPECT_EQ(s->name.size(), kMaxSymbolNameBytes);
  EXPECT_TRUE(s->cut);
  EXPECT_FALSE(t->Find(0x1000 + 16 * 20000).has_value());
}

TEST(FunctionSymbols, RefuseTablesPastTheirBound) {
  TempFile f;
  const std::string image =
      Elf({{SHT_STRTAB, std::string("\0f\0", 3)},
           {SHT_SYMTAB, std::string(48, '\0'), (1ull << 30) / 24 * 24, 1, 24}});
  f.Write(image, static_cast<off_t>((1ull << 30) + 0x1000));  // sparse: claims 1 GiB
  absl::StatusOr<FunctionSymbols> t = ReadFunctionSymbolsFromFile(f.path());
  EXPECT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("reads at most"), absl::string_view::npos) << t.status();
}

// A sparse file claiming a 2 GiB .dynsym took resolve 6.8 s to scan: refused before a byte is
// read. So are more sections than the bound (libelf allocates per section at elf_begin).
TEST(ElfFile, BoundsSectionsAndCounts) {
  TempFile f;
  const std::string image =
      Elf({{SHT_STRTAB, std::string("\0x\0", 3)},
           {SHT_DYNSYM, std::string(48, '\0'), (2ull << 30) / 24 * 24, 1, 24}});
  f.Write(image, static_cast<off_t>((2ull << 30) + 0x1000));
  absl::StatusOr<ElfTlsExport> elf = ReadTlsExportFromFile(f.path(), "otel_thread_ctx_v1");
  ASSERT_FALSE(elf.ok());
  EXPECT_NE(elf.status().message().find(".dynsym holds 2147483640 bytes"), absl::string_view::npos)
      << elf.status();
  std::vector<Section> many(5000, {SHT_PROGBITS, "x"});
  const std::string crowded = Elf(many);
  EXPECT_NE(ReadTlsExportFromMemory(Bytes(crowded), "x").status().message().find("5001 sections"),
            absl::string_view::npos);
}

// A file truncated under the reader gives an error, never SIGBUS: it is read by pread.
TEST(ElfFile, ATruncatedFileIsAnError) {
  TempFile f;
  std::string dynsym = std::string(sizeof(Elf64_Sym), '\0') + Symbol(1, 0x1000, 8);
  const std::string image =
      Elf({{SHT_STRTAB, std::string("\0x\0", 3)}, {SHT_DYNSYM, dynsym, 0, 1, 24}});
  f.Write(image, static_cast<off_t>(image.size()));
  const absl::StatusOr<ElfTlsExport> whole = ReadTlsExportFromFile(f.path(), "x");
  ASSERT_TRUE(whole.ok() && whole->symbol.has_value()) << whole.status();
  f.Write(image.substr(0, 0x80), 0x80);  // the headers' own offsets now lie past the end
  const absl::StatusOr<ElfTlsExport> cut = ReadTlsExportFromFile(f.path(), "x");
  EXPECT_FALSE(cut.ok() && cut->symbol.has_value());  // an error, or nothing found
}

TEST(DemangledName, DemanglesWithinTheBound) {
  EXPECT_EQ(DemangleBounded("_ZN5vtctx6reader10Symbolizer9UserFrameEmb", 1024),
            "vtctx::reader::Symbolizer::UserFrame(unsigned long, bool)");
  EXPECT_FALSE(DemangleBounded("main", 1024).has_value());  // not a mangled name
  EXPECT_FALSE(DemangleBounded("_Z", 1024).has_value());    // malformed
  EXPECT_FALSE(DemangleBounded("_Z" + std::string(kMaxMangledBytes, 'x'), 1024).has_value());
  // P<P<...>, P<...>> nested 28 deep: ~2^28 characters demangled, 203 mangled.
  const std::string bomb =
      "_Z4bombP1PIS_IS_IS_IS_IS_IS_IS_IS_IS_IS_IS_IS_IS_IS_IS_IS_IS_IS_IS_IS_IS_IS_IS_IS_IS_IS_IS"
      "_IiiES0_ES1_ES2_ES3_ES4_ES5_ES6_ES7_ES8_ES9_ESA_ESB_ESC_ESD_ESE_ESF_ESG_ESH_ESI_ESJ_ESK_ESL_"
      "ESM_ESN_ESO_ESP_ESQ_E";
  const std::optional<std::string> d = DemangleBounded(bomb, 1000);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->size(), 1003u);  // the bound, then "..."
  EXPECT_EQ(d->rfind("bomb(P<P<P<", 0), 0u) << *d;
}

// One table per file, however many times it is mapped.
TEST(NativeFrames, OneTablePerFile) {
  const int fd = open(CTXFIX_TLSDESC, O_RDONLY);
  ASSERT_GE(fd, 0);
  struct stat st {};
  ASSERT_EQ(fstat(fd, &st), 0);
  std::vector<void*> maps;
  for (int i = 0; i < 5; ++i) {
    void* m =
        mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
    ASSERT_NE(m, MAP_FAILED);
    maps.push_back(m);
  }
  absl::StatusOr<std::vector<Mapping>> mappings = ReadMaps(getpid());
  ASSERT_TRUE(mappings.ok());
  NativeFrames frames("/proc/self", *mappings);
  const uint8_t stack[64] = {};
  for (void* m : maps) {
    const uint64_t pc = reinterpret_cast<uint64_t>(m) + 0x1000;  // somewhere in its text
    (void)frames.Caller({pc, 0x7f0000000000, 0}, pc, {0x7f0000000000, stack});
  }
  EXPECT_EQ(frames.tables_loaded(), 1u);
  for (void* m : maps) munmap(m, static_cast<size_t>(st.st_size));
  close(fd);
}

// A held process that runs another program is no longer the one held: Execed() says so, and its
// memory (bound to the address space held) reads nothing of the new program.
TEST(TargetProcess, AnExecIsSeen) {
  int go[2];
  ASSERT_EQ(pipe(go), 0);
  const pid_t child = fork();
  if (child == 0) {
    char c;
    if (read(go[0], &c, 1) != 1) _exit(1);
    execl("/bin/sleep", "sleep", "30", static_cast<char*>(nullptr));
    _exit(127);
  }
  absl::StatusOr<TargetProcess> target = TargetProcess::Hold(child);
  ASSERT_TRUE(target.ok()) << target.status();
  EXPECT_FALSE(target->Execed());
  absl::StatusOr<std::unique_ptr<ProcessMemory>> memory = target->Memory();
  ASSERT_TRUE(memory.ok());
  const uint64_t address = reinterpret_cast<uint64_t>(&go);  // mapped alike in the fork
  EXPECT_TRUE((*memory)->ReadU64(address).ok());
  ASSERT_EQ(write(go[1], "x", 1), 1);
  // The exec is over once the exe link names the new program (waited for, at most 10 s).
  const std::string link = "/proc/" + std::to_string(child) + "/exe";
  for (int i = 0; i < 10000; ++i) {
    char exe[256] = {};
    if (readlink(link.c_str(), exe, sizeof exe - 1) > 0 && std::strstr(exe, "sleep") != nullptr) {
      break;
    }
    usleep(1000);
  }
  EXPECT_TRUE(target->Execed());
  EXPECT_FALSE((*memory)->ReadU64(address).ok());
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  close(go[0]);
  close(go[1]);
}

TEST(CommandDeadlineDeathTest, EndsTheCommandWithOneLine) {
  EXPECT_EXIT(
      {
        NameCommandForDeadline("resolve");
        ArmCommandDeadline(0.05, "resolving pid 1");
        for (;;) pause();
      },
      ::testing::ExitedWithCode(1),
      "vtctx-reader: resolve: gave up after 0 s \\(resolving pid 1\\): a target's file or "
      "answer stalled it");
}

}  // namespace
}  // namespace vtctx::reader
