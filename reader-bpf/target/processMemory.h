// Reading another process's memory. MemoryReader is the seam the resolver and its tests share;
// ProcessMemory reads a live process with process_vm_readv, falling back to /proc/<pid>/mem; one
// opened under a held process's directory reads that process's memory only (its mem file is bound
// to the process's address space when opened, process_vm_readv to a pid number).
#ifndef VTCTX_READER_PROCESS_MEMORY_H_
#define VTCTX_READER_PROCESS_MEMORY_H_

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace vtctx::reader {

class MemoryReader {
 public:
  virtual ~MemoryReader() = default;
  // Reads exactly `size` bytes at `address` or fails (partial reads are failures).
  virtual absl::Status Read(uint64_t address, void* out, size_t size) = 0;

  absl::StatusOr<uint64_t> ReadU64(uint64_t address) {
    uint64_t value = 0;
    if (absl::Status s = Read(address, &value, sizeof value); !s.ok()) return s;
    return value;
  }

  // A NUL-terminated string of at most `max_bytes` (InvalidArgument when longer), read up to a
  // page at a time: a string may end just before an unmapped page.
  absl::StatusOr<std::string> ReadCString(uint64_t address, size_t max_bytes);
};

class ProcessMemory final : public MemoryReader {
 public:
  // Fails with NotFound / PermissionDenied if the process is gone / not ours to read.
  static absl::StatusOr<std::unique_ptr<ProcessMemory>> Open(pid_t pid);
  // Reads through `proc_dir`/mem only (e.g. a held process's directory, targetProcess.h).
  static absl::StatusOr<std::unique_ptr<ProcessMemory>> OpenIn(absl::string_view proc_dir);
  // Reads through an open mem file (its own: closed with it); TargetProcess::Memory() gives one
  // bound to the address space the process had when it was held.
  static std::unique_ptr<ProcessMemory> FromMemFd(int mem_fd);
  ~ProcessMemory() override;
  absl::Status Read(uint64_t address, void* out, size_t size) override;

 private:
  ProcessMemory(pid_t pid, int mem_fd) : pid_(pid), mem_fd_(mem_fd) {}
  pid_t pid_;   // 0: read through mem_fd_ only
  int mem_fd_;  // /proc/<pid>/mem, used when process_vm_readv is unavailable
};

}  // namespace vtctx::reader

#endif  // VTCTX_READER_PROCESS_MEMORY_H_
