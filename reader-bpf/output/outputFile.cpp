#include "output/outputFile.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "target/boundedFile.h"
#include "target/untrustedText.h"

namespace vtctx::reader {

absl::StatusOr<int> OpenOutputFile(const std::string& path) {
  const std::string shown = Printable(path, 4096);
  const int fd =
      open(path.c_str(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0666);
  if (fd < 0) {
    const int err = errno;
    if (err == ELOOP) {
      return absl::InternalError(
          absl::StrCat("will not write ", shown, ": it is a symbolic link (give the real path)"));
    }
    if (err == ENXIO) return absl::InternalError(absl::StrCat(shown, " is a FIFO"));
    return absl::InternalError(absl::StrCat("cannot write ", shown, ": ", strerror(err)));
  }
  struct stat st {};
  std::string wrong;
  if (fstat(fd, &st) != 0) {
    wrong = strerror(errno);
  } else if (!S_ISREG(st.st_mode)) {
    wrong = absl::StrCat("it is ", FileKind(st.st_mode));
  } else if (st.st_uid != geteuid()) {
    wrong = absl::StrCat("it is a file of uid ", st.st_uid, ", not of uid ", geteuid(),
                         " (remove it or choose a path of your own)");
  } else if (st.st_nlink != 1) {
    wrong = absl::StrCat("it has ", st.st_nlink, " links (a hard link into another file?)");
  } else if (ftruncate(fd, 0) != 0) {
    wrong = strerror(errno);
  } else if (const int flags = fcntl(fd, F_GETFL);
             flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
    wrong = strerror(errno);
  }
  if (!wrong.empty()) {
    close(fd);
    return absl::InternalError(absl::StrCat("will not write ", shown, ": ", wrong));
  }
  return fd;
}

absl::Status WriteOutputFile(const std::string& path, absl::string_view bytes) {
  absl::StatusOr<int> fd = OpenOutputFile(path);
  if (!fd.ok()) return fd.status();
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = write(*fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : EIO;
      close(*fd);
      return absl::InternalError(
          absl::StrCat("writing ", Printable(path, 4096), " failed: ", strerror(err)));
    }
    done += static_cast<size_t>(n);
  }
  if (close(*fd) != 0) {
    return absl::InternalError(absl::StrCat("writing ", Printable(path, 4096), " failed"));
  }
  return absl::OkStatus();
}

}  // namespace vtctx::reader
