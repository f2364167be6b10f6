#include "target/elfFile.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "target/boundedFile.h"
#include "target/errnoStatus.h"

namespace vtctx::reader {
namespace {

// libelf must be told the API version once per process before any other call.
bool InitLibelf() {
  static std::once_flag once;
  static bool ok = false;
  std::call_once(once, [] { ok = elf_version(EV_CURRENT) != EV_NONE; });
  return ok;
}

// Checks what libelf would allocate for at elf_begin: the section and segment counts of the
// header (with their extended forms in section header 0). `read(offset, out, size)` reads exactly
// `size` bytes of the file or fails.
template <typename Read>
absl::Status CheckHeader(Read read) {
  Elf64_Ehdr eh;
  if (!read(0, &eh, sizeof eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) {
    return absl::InvalidArgumentError("not an ELF file");
  }
  if (eh.e_ident[EI_CLASS] != ELFCLASS64) return absl::InvalidArgumentError("not a 64-bit ELF");
  if (eh.e_ident[EI_DATA] != ELFDATA2LSB) {
    return absl::InvalidArgumentError("not a little-endian ELF");
  }
  uint64_t sections = eh.e_shnum;
  uint64_t segments = eh.e_phnum;
  if (eh.e_shoff != 0 && (sections == 0 || segments == PN_XNUM)) {
    Elf64_Shdr first;
    if (!read(eh.e_shoff, &first, sizeof first)) {
      return absl::InvalidArgumentError("section header 0 unreadable");
    }
    if (sections == 0) sections = first.sh_size;
    if (segments == PN_XNUM) segments = first.sh_info;
  }
  if (sections > kMaxElfSections) {
    return absl::InvalidArgumentError(
        absl::StrCat(sections, " sections (the reader reads at most ", kMaxElfSections, ")"));
  }
  if (segments > kMaxElfSegments) {
    return absl::InvalidArgumentError(
        absl::StrCat(segments, " segments (the reader reads at most ", kMaxElfSegments, ")"));
  }
  return absl::OkStatus();
}

}  // namespace

ElfHandle::~ElfHandle() {
  if (elf_ != nullptr) elf_end(elf_);
  if (fd_ >= 0) close(fd_);
}

bool LooksLikeElf(std::span<const uint8_t> head) {
  return head.size() >= SELFMAG && std::memcmp(head.data(), ELFMAG, SELFMAG) == 0;
}

absl::Status ElfError(absl::string_view what) {
  const char* msg = elf_errmsg(-1);
  return absl::InvalidArgumentError(absl::StrCat(what, ": ", msg ? msg : "malformed ELF"));
}

absl::StatusOr<ElfHandle> OpenElfFile(const std::string& path) {
  if (!InitLibelf()) return absl::InternalError("libelf version mismatch");
  const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(errno, absl::StrCat("open ", path));
  struct Closer {
    int fd;
    ~Closer() {
      if (fd >= 0) close(fd);
    }
  } closer{fd};  // closes fd on every failure below
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    return absl::FailedPreconditionError(
        absl::StrCat(path, " is ", FileKind(st.st_mode), ", not a regular file"));
  }
  const absl::Status header = CheckHeader([&](uint64_t offset, void* out, size_t size) {
    return offset <= static_cast<uint64_t>(INT64_MAX) &&
           pread(fd, out, size, static_cast<off_t>(offset)) == static_cast<ssize_t>(size);
  });
  if (!header.ok()) return absl::InvalidArgumentError(absl::StrCat(path, ": ", header.message()));
  // ELF_C_READ: libelf reads what it is asked for with pread, into its own memory.
  Elf* elf = elf_begin(fd, ELF_C_READ, nullptr);
  if (elf == nullptr) return ElfError(path);
  closer.fd = -1;
  return ElfHandle(elf, fd);
}

absl::StatusOr<ElfHandle> OpenElfImage(std::span<const uint8_t> image) {
  if (!InitLibelf()) return absl::InternalError("libelf version mismatch");
  const absl::Status header = CheckHeader([&](uint64_t offset, void* out, size_t size) {
    if (offset > image.size() || image.size() - offset < size) return false;
    std::memcpy(out, image.data() + offset, size);
    return true;
  });
  if (!header.ok()) return header;
  // elf_memory() takes a mutable pointer but ELF_C_READ never writes through it.
  Elf* elf =
      elf_memory(const_cast<char*>(reinterpret_cast<const char*>(image.data())), image.size());
  if (elf == nullptr) return ElfError("elf_memory");
  return ElfHandle(elf, -1);
}

absl::StatusOr<Elf_Data*> SectionData(Elf_Scn* scn, uint64_t max_bytes, absl::string_view what) {
  GElf_Shdr sh;
  if (gelf_getshdr(scn, &sh) == nullptr) return ElfError(absl::StrCat(what, " header"));
  if (sh.sh_type != SHT_NOBITS && sh.sh_size > max_bytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " holds ", sh.sh_size, " bytes (the reader reads at most ", max_bytes, ")"));
  }
  Elf_Data* data = elf_getdata(scn, nullptr);
  if (data == nullptr) return ElfError(absl::StrCat(what, " data"));
  return data;
}

absl::Status CheckedStringTable(Elf* elf, size_t index, uint64_t max_bytes) {
  Elf_Scn* scn = elf_getscn(elf, index);
  GElf_Shdr sh;
  if (scn == nullptr || gelf_getshdr(scn, &sh) == nullptr) return ElfError("string table");
  if (sh.sh_type != SHT_STRTAB) return absl::InvalidArgumentError("string table of another type");
  if (sh.sh_size > max_bytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "string table holds ", sh.sh_size, " bytes (the reader reads at most ", max_bytes, ")"));
  }
  return absl::OkStatus();
}

}  // namespace vtctx::reader
