// Native frames of a live process unwound by their files' call-frame information (cfiTable.h):
// code built without frame pointers (glibc, most distribution libraries) has no rbp chain, but
// every x86_64 ELF carries .eh_frame for exceptions. Each file's table is read the first time a
// frame in it is unwound, through the kernel's link to the mapped inode (/proc/<pid>/map_files,
// under the held process's directory: the file the process maps, whatever name it gives it, never
// a path resolved in the reader's view), a regular file only, its .eh_frame at most
// kMaxEhFrameBytes (elfFile.h).
//
// The files are the target's: one table per file (device and inode), however many times the file
// is mapped (a JVM mapping one 2 MiB file 127 times gets one table, not 127); all tables together
// hold at most kMaxRunCfiRows rows, and at most kMaxRunEhFrameBytes of .eh_frame are read in a
// run. Past either bound a file's frames are unwound as code without CFI (frame pointers).
#ifndef VTCTX_READER_NATIVE_FRAMES_H_
#define VTCTX_READER_NATIVE_FRAMES_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "target/cfiTable.h"
#include "target/procMaps.h"
#include "target/stackCopy.h"

namespace vtctx::reader {

// All tables of a run (libjvm.so of Temurin 25: 287k rows; 24 bytes a row).
inline constexpr size_t kMaxRunCfiRows = 1536u << 10;
inline constexpr uint64_t kMaxRunEhFrameBytes = 256u << 20;

class NativeFrames {
 public:
  // `proc_dir`: the held process's /proc directory (targetProcess.h); `maps` its mappings.
  NativeFrames(std::string proc_dir, const std::vector<Mapping>& maps);

  // The caller of a native frame at `pc` (`at`: the address to look up, pc - 1 for a return
  // address) by its file's CFI; nullopt: no file, no table, or a row that does not describe it.
  std::optional<FrameState> Caller(const FrameState& frame, uint64_t at, const StackCopy& copy);

  size_t tables_loaded() const { return loaded_; }
  size_t rows() const { return rows_; }

 private:
  using FileId = std::tuple<uint32_t, uint32_t, uint64_t>;  // device, inode
  // A file's table with the load segments its instances' biases come from.
  struct Table {
    CfiTable cfi;
    std::vector<LoadSegment> loads;
  };
  struct Instance {
    MappedFile file;
    bool tried = false;
    uint64_t bias = 0;
    const Table* table = nullptr;  // null: no usable table
  };
  Instance* InstanceAt(uint64_t pc);
  void Load(Instance& f);
  const Table* TableOf(const Instance& f);

  std::string proc_dir_;
  std::vector<Instance> instances_;
  // Executable ranges -> index in instances_.
  std::map<uint64_t, std::pair<uint64_t, size_t>> ranges_;
  std::map<FileId, std::unique_ptr<Table>> tables_;  // null: tried, no usable table
  size_t loaded_ = 0;
  size_t rows_ = 0;
  uint64_t eh_frame_bytes_ = 0;
};

}  // namespace vtctx::reader

#endif  // VTCTX_READER_NATIVE_FRAMES_H_
