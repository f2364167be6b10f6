#include "target/processMemory.h"

#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "target/errnoStatus.h"

namespace vtctx::reader {

absl::StatusOr<std::string> MemoryReader::ReadCString(uint64_t address, size_t max_bytes) {
  constexpr uint64_t kPageBytes = 4096;
  std::string out;
  char buffer[kPageBytes];
  while (out.size() < max_bytes) {
    const uint64_t at = address + out.size();
    const size_t chunk = static_cast<size_t>(
        std::min<uint64_t>(kPageBytes - at % kPageBytes, max_bytes - out.size()));
    if (absl::Status s = Read(at, buffer, chunk); !s.ok()) return s;
    if (const void* nul = std::memchr(buffer, '\0', chunk); nul != nullptr) {
      out.append(buffer, static_cast<size_t>(static_cast<const char*>(nul) - buffer));
      return out;
    }
    out.append(buffer, chunk);
  }
  return absl::InvalidArgumentError(
      absl::StrFormat("a string at 0x%x is longer than %u bytes", address, max_bytes));
}

absl::StatusOr<std::unique_ptr<ProcessMemory>> ProcessMemory::Open(pid_t pid) {
  absl::StatusOr<std::unique_ptr<ProcessMemory>> memory = OpenIn(absl::StrCat("/proc/", pid));
  if (memory.ok()) (*memory)->pid_ = pid;
  return memory;
}

absl::StatusOr<std::unique_ptr<ProcessMemory>> ProcessMemory::OpenIn(absl::string_view proc_dir) {
  const std::string path = absl::StrCat(proc_dir, "/mem");
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(errno, absl::StrCat("open ", path));
  return std::unique_ptr<ProcessMemory>(new ProcessMemory(0, fd));
}

std::unique_ptr<ProcessMemory> ProcessMemory::FromMemFd(int mem_fd) {
  return std::unique_ptr<ProcessMemory>(new ProcessMemory(0, mem_fd));
}

ProcessMemory::~ProcessMemory() { close(mem_fd_); }

absl::Status ProcessMemory::Read(uint64_t address, void* out, size_t size) {
  iovec local{out, size};
  iovec remote{reinterpret_cast<void*>(address), size};
  ssize_t n = pid_ > 0 ? process_vm_readv(pid_, &local, 1, &remote, 1, 0) : -1;
  if (n == static_cast<ssize_t>(size)) return absl::OkStatus();
  if (pid_ == 0 || (n < 0 && errno == ENOSYS)) {
    n = pread(mem_fd_, out, size, static_cast<off_t>(address));
    if (n == static_cast<ssize_t>(size)) return absl::OkStatus();
  }
  if (n < 0) {
    return ErrnoStatus(errno, absl::StrFormat("read %zu bytes at 0x%x", size, address));
  }
  return absl::DataLossError(
      absl::StrFormat("short read at 0x%x: %zd of %zu bytes", address, n, size));
}

}  // namespace vtctx::reader
