#include "target/nativeFrames.h"

#include <utility>

#include "target/elfFile.h"
#include "target/elfSymbols.h"

namespace vtctx::reader {

NativeFrames::NativeFrames(std::string proc_dir, const std::vector<Mapping>& maps)
    : proc_dir_(std::move(proc_dir)) {
  for (MappedFile& file : GroupMappedFiles(maps)) {
    const size_t index = instances_.size();
    bool executable = false;
    for (const Mapping& m : file.mappings) {
      if (!m.executable) continue;
      executable = true;
      ranges_[m.start] = {m.end, index};
    }
    if (!executable) continue;
    Instance f;
    f.file = std::move(file);
    instances_.push_back(std::move(f));
  }
}

NativeFrames::Instance* NativeFrames::InstanceAt(uint64_t pc) {
  auto it = ranges_.upper_bound(pc);
  if (it == ranges_.begin()) return nullptr;
  --it;
  if (pc >= it->second.first) return nullptr;
  return &instances_[it->second.second];
}

const NativeFrames::Table* NativeFrames::TableOf(const Instance& f) {
  const FileId id{f.file.dev_major, f.file.dev_minor, f.file.inode};
  auto [it, added] = tables_.try_emplace(id);
  if (!added) return it->second.get();
  if (rows_ >= kMaxRunCfiRows || eh_frame_bytes_ >= kMaxRunEhFrameBytes) return nullptr;
  absl::StatusOr<ElfUnwindTables> elf = ReadUnwindTablesFromFile(MappedFileLink(proc_dir_, f.file));
  if (!elf.ok() || elf->eh_frame.empty()) return nullptr;
  eh_frame_bytes_ += elf->eh_frame.size();
  absl::StatusOr<CfiTable> cfi =
      CfiTable::Parse(elf->eh_frame, elf->eh_frame_vaddr, kMaxRunCfiRows - rows_);
  if (!cfi.ok() || cfi->size() == 0) return nullptr;
  rows_ += cfi->size();
  loaded_++;
  it->second = std::make_unique<Table>(Table{*std::move(cfi), std::move(elf->loads)});
  return it->second.get();
}

void NativeFrames::Load(Instance& f) {
  f.tried = true;
  const Table* table = TableOf(f);
  if (table == nullptr) return;
  const std::optional<uint64_t> bias = LoadBias(f.file, table->loads);
  if (!bias) return;
  f.bias = *bias;
  f.table = table;
}

std::optional<FrameState> NativeFrames::Caller(const FrameState& frame, uint64_t at,
                                               const StackCopy& copy) {
  Instance* f = InstanceAt(at);
  if (f == nullptr) return std::nullopt;
  if (!f->tried) Load(*f);
  if (f->table == nullptr) return std::nullopt;
  const CfiRow* row = f->table->cfi.Find(at - f->bias);
  if (row == nullptr) return std::nullopt;
  return CfiCaller(*row, frame, copy);
}

}  // namespace vtctx::reader
