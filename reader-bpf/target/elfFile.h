// The one way the reader opens an ELF file a target maps, for libelf: the file is the target's to
// shape (a sparse file can claim a 2 GiB .dynsym, the target can truncate it while it is read, a
// FUSE file can stall), so
//   - it is read with pread (libelf's ELF_C_READ), never mmap'ed: a file truncated under the
//     reader gives a short read and an error, never SIGBUS;
//   - before libelf sees it, its header's section and segment counts are checked (libelf
//     allocates per section at elf_begin);
//   - a section is read only through SectionData / CheckedStringTable, which refuse one larger
//     than its bound before a byte of it is read.
// Reading through a memory image (tests, fuzzers) applies the same checks.
#ifndef VTCTX_READER_ELF_FILE_H_
#define VTCTX_READER_ELF_FILE_H_

#include <gelf.h>
#include <libelf.h>

#include <cstdint>
#include <span>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace vtctx::reader {

// Bounds of what a parse reads of one file. Real libraries stay far below them (libjvm.so of
// Temurin 25: 35 sections, 1.7 MB .symtab, 3.3 MB .strtab, 1.8 MB .eh_frame).
inline constexpr size_t kMaxElfSections = 4096;
inline constexpr size_t kMaxElfSegments = 256;
// A symbol table, string table or relocation section, read whole.
inline constexpr uint64_t kMaxElfTableBytes = 32u << 20;
// .eh_frame (cfiTable.h).
inline constexpr uint64_t kMaxEhFrameBytes = 16u << 20;

// An Elf handle with the fd it reads from (if any); ends both.
class ElfHandle {
 public:
  ElfHandle(Elf* elf, int fd) : elf_(elf), fd_(fd) {}
  ElfHandle(ElfHandle&& other) noexcept : elf_(other.elf_), fd_(other.fd_) {
    other.elf_ = nullptr;
    other.fd_ = -1;
  }
  ElfHandle(const ElfHandle&) = delete;
  ElfHandle& operator=(const ElfHandle&) = delete;
  ElfHandle& operator=(ElfHandle&&) = delete;
  ~ElfHandle();
  Elf* get() const { return elf_; }

 private:
  Elf* elf_;
  int fd_;
};

// Opens `path` (a regular file; map_files links are followed, they are the kernel's) for reading
// by pread, its header checked. InvalidArgument for what is not a (64-bit) ELF file or breaks a
// bound; FailedPrecondition for what is not a regular file.
absl::StatusOr<ElfHandle> OpenElfFile(const std::string& path);
// The same over an image in memory (which must outlive the handle).
absl::StatusOr<ElfHandle> OpenElfImage(std::span<const uint8_t> image);

// True if `head` starts with the ELF magic.
bool LooksLikeElf(std::span<const uint8_t> head);

// InvalidArgument with libelf's message.
absl::Status ElfError(absl::string_view what);

// The data of section `scn`, read only when its size is at most `max_bytes`.
absl::StatusOr<Elf_Data*> SectionData(Elf_Scn* scn, uint64_t max_bytes, absl::string_view what);
// OK when section `index` is a string table of at most `max_bytes`: elf_strptr on it then reads
// no more than that.
absl::Status CheckedStringTable(Elf* elf, size_t index, uint64_t max_bytes);

}  // namespace vtctx::reader

#endif  // VTCTX_READER_ELF_FILE_H_
