#include "target/nativeFrames.h"

#include <utility>

#include "target/elfSymbols.h"

namespace vtctx::reader {

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
  absl::StatusOr<ElfUnwindTables> elf = ReadUnwindTablesFromFile(MappedFileLink(proc_dir_, f.file));
  if (!elf.ok() || elf->eh_frame.empty()) return;
  const std::optional<uint64_t> bias = LoadBias(f.file, elf->loads);
  if (!bias) return;
  absl::StatusOr<CfiTable> table = CfiTable::Parse(elf->eh_frame, elf->eh_frame_vaddr);
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
