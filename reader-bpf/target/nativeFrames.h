// Native frames of a live process unwound by their files' call-frame information (cfiTable.h):
// code built without frame pointers (glibc, most distribution libraries) has no rbp chain, but
// every x86_64 ELF carries .eh_frame for exceptions. Each file's table is read the first time a
// frame in it is unwound, through the kernel's link to the mapped inode (/proc/<pid>/map_files,
// under the held process's directory: the file the process maps, whatever name it gives it, never
// a path resolved in the reader's view), a regular file only, its .eh_frame at most 64 MiB
// (elfSymbols.h ReadUnwindTablesFromFile).
#ifndef VTCTX_READER_NATIVE_FRAMES_H_
#define VTCTX_READER_NATIVE_FRAMES_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "target/cfiTable.h"
#include "target/procMaps.h"
#include "target/stackCopy.h"

namespace vtctx::reader {

class NativeFrames {
 public:
  // `proc_dir`: the held process's /proc directory (targetProcess.h); `maps` its mappings.
  NativeFrames(std::string proc_dir, const std::vector<Mapping>& maps);

  // The caller of a native frame at `pc` (`at`: the address to look up, pc - 1 for a return
  // address) by its file's CFI; nullopt: no file, no table, or a row that does not describe it.
  std::optional<FrameState> Caller(const FrameState& frame, uint64_t at, const StackCopy& copy);

  size_t tables_loaded() const { return loaded_; }

 private:
  struct File {
    MappedFile file;
    bool tried = false;
    uint64_t bias = 0;
    std::unique_ptr<CfiTable> table;  // null: no usable .eh_frame
  };
  File* FileAt(uint64_t pc);
  void Load(File& f);

  std::string proc_dir_;
  std::vector<File> files_;
  // Executable ranges -> index in files_.
  std::map<uint64_t, std::pair<uint64_t, size_t>> ranges_;
  size_t loaded_ = 0;
};

}  // namespace vtctx::reader

#endif  // VTCTX_READER_NATIVE_FRAMES_H_
