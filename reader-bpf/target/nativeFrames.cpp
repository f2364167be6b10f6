#include "target/nativeFrames.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <utility>

#include "absl/strings/str_format.h"
#include "target/elfSymbols.h"

namespace vtctx::reader {
namespace {

constexpr uint64_t kMaxEhFrameBytes = 64 << 20;

struct EhFrame {
  uint64_t vaddr = 0;
  std::vector<uint8_t> bytes;
};

// The .eh_frame section of the regular file at `path` (a map_files link: the mapped inode).
std::optional<EhFrame> ReadEhFrame(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return std::nullopt;
  struct stat st {};
  std::optional<EhFrame> out;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    elf_version(EV_CURRENT);
    if (Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr); elf != nullptr) {
      size_t names = 0;
      if (elf_getshdrstrndx(elf, &names) == 0) {
        Elf_Scn* scn = nullptr;
        while ((scn = elf_nextscn(elf, scn)) != nullptr) {
          GElf_Shdr sh;
          if (gelf_getshdr(scn, &sh) == nullptr || sh.sh_type != SHT_PROGBITS) continue;
          const char* name = elf_strptr(elf, names, sh.sh_name);
          if (name == nullptr || std::strcmp(name, ".eh_frame") != 0) continue;
          if (sh.sh_size > kMaxEhFrameBytes) break;
          Elf_Data* data = elf_getdata(scn, nullptr);
          if (data == nullptr || data->d_buf == nullptr || data->d_size != sh.sh_size) break;
          const uint8_t* p = static_cast<const uint8_t*>(data->d_buf);
          out = EhFrame{sh.sh_addr, std::vector<uint8_t>(p, p + data->d_size)};
          break;
        }
      }
      elf_end(elf);
    }
  }
  close(fd);
  return out;
}

}  // namespace

NativeFrames::NativeFrames(std::string proc_dir, const std::vector<Mapping>& maps)
    : proc_dir_(std::move(proc_dir)) {
  for (MappedFile& file : GroupMappedFiles(maps)) {
    const size_t index = files_.size();
    bool executable = false;
    for (const Mapping& m : file.mappings) {
      if (!m.executable) continue;
      executable = true;
      ranges_[m.start] = {m.end, index};
    }
    if (!executable) continue;
    File f;
    f.file = std::move(file);
    files_.push_back(std::move(f));
  }
}

NativeFrames::File* NativeFrames::FileAt(uint64_t pc) {
  auto it = ranges_.upper_bound(pc);
  if (it == ranges_.begin()) return nullptr;
  --it;
  if (pc >= it->second.first) return nullptr;
  return &files_[it->second.second];
}

void NativeFrames::Load(File& f) {
  f.tried = true;
  const Mapping& first = f.file.mappings.front();
  const std::string link = absl::StrFormat("%s/map_files/%x-%x", proc_dir_, first.start, first.end);
  absl::StatusOr<ElfTlsExport> elf = ReadTlsExportFromFile(link, "");
  if (!elf.ok()) return;
  const std::optional<uint64_t> bias = LoadBias(f.file, elf->loads);
  if (!bias) return;
  std::optional<EhFrame> eh = ReadEhFrame(link);
  if (!eh) return;
  absl::StatusOr<CfiTable> table = CfiTable::Parse(eh->bytes, eh->vaddr);
  if (!table.ok() || table->size() == 0) return;
  f.bias = *bias;
  f.table = std::make_unique<CfiTable>(*std::move(table));
  loaded_++;
}

std::optional<FrameState> NativeFrames::Caller(const FrameState& frame, uint64_t at,
                                               const StackCopy& copy) {
  File* f = FileAt(at);
  if (f == nullptr) return std::nullopt;
  if (!f->tried) Load(*f);
  if (!f->table) return std::nullopt;
  const CfiRow* row = f->table->Find(at - f->bias);
  if (row == nullptr) return std::nullopt;
  return CfiCaller(*row, frame, copy);
}

}  // namespace vtctx::reader
