#include "target/boundedFile.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "absl/strings/str_cat.h"
#include "target/errnoStatus.h"

namespace vtctx::reader {

const char* FileKind(unsigned mode) {
  switch (mode & S_IFMT) {
    case S_IFREG:
      return "a regular file";
    case S_IFDIR:
      return "a directory";
    case S_IFLNK:
      return "a symbolic link";
    case S_IFIFO:
      return "a FIFO";
    case S_IFSOCK:
      return "a socket";
    case S_IFCHR:
      return "a character device";
    case S_IFBLK:
      return "a block device";
    default:
      return "a file of unknown type";
  }
}

absl::StatusOr<int> OpenRegularFile(int dir_fd, const std::string& path, int flags, unsigned mode) {
  const int fd =
      openat(dir_fd, path.c_str(), flags | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, mode);
  if (fd < 0) {
    const int err = errno;
    if (err == ELOOP) {
      return absl::FailedPreconditionError(absl::StrCat(path, " is a symbolic link"));
    }
    if (err == ENXIO) {  // O_WRONLY | O_NONBLOCK on a FIFO without a reader
      return absl::FailedPreconditionError(absl::StrCat(path, " is a FIFO"));
    }
    return ErrnoStatus(err, absl::StrCat("open ", path));
  }
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    const unsigned kind = st.st_mode;
    close(fd);
    return absl::FailedPreconditionError(
        absl::StrCat(path, " is ", FileKind(kind), ", not a regular file"));
  }
  return fd;
}

absl::StatusOr<std::string> ReadAllBounded(int fd, size_t max_bytes, absl::string_view what) {
  std::string out;
  char buffer[16384];
  for (;;) {
    const ssize_t n = pread(fd, buffer, sizeof buffer, static_cast<off_t>(out.size()));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoStatus(errno, absl::StrCat("read ", what));
    if (n == 0) return out;
    if (out.size() + static_cast<size_t>(n) > max_bytes) {
      return absl::ResourceExhaustedError(
          absl::StrCat(what, " holds more than ", max_bytes, " bytes"));
    }
    out.append(buffer, static_cast<size_t>(n));
  }
}

absl::StatusOr<std::string> ReadRegularFile(int dir_fd, const std::string& path, size_t max_bytes) {
  absl::StatusOr<int> fd = OpenRegularFile(dir_fd, path, O_RDONLY);
  if (!fd.ok()) return fd.status();
  absl::StatusOr<std::string> text = ReadAllBounded(*fd, max_bytes, path);
  close(*fd);
  return text;
}

absl::StatusOr<std::string> ReadKernelFile(const std::string& path, size_t max_bytes) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return ErrnoStatus(errno, absl::StrCat("read ", path));
  std::string out;
  char buffer[16384];
  for (;;) {
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      close(fd);
      return ErrnoStatus(err, absl::StrCat("read ", path));
    }
    if (n == 0) break;
    if (out.size() + static_cast<size_t>(n) > max_bytes) {
      close(fd);
      return absl::ResourceExhaustedError(
          absl::StrCat(path, " holds more than ", max_bytes, " bytes"));
    }
    out.append(buffer, static_cast<size_t>(n));
  }
  close(fd);
  return out;
}

}  // namespace vtctx::reader
