#include "ownedFile.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace vtctx {
namespace {

constexpr int kMaxComponents = 64;

const char* Kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "not a regular file";
}

OwnedFile Fail(int fd, std::string error) {
  if (fd >= 0) close(fd);
  return {-1, std::move(error)};
}

}  // namespace

OwnedFile OpenOwnedFileForWriting(const std::string& path, bool create) {
  if (path.empty()) return Fail(-1, "empty path");
  // The directories, one by one: O_PATH | O_NOFOLLOW | O_DIRECTORY fails on a symlink.
  int dir = open(path[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return Fail(-1, std::string("cannot open its first directory: ") + strerror(errno));
  size_t start = path[0] == '/' ? 1 : 0;
  int components = 0;
  for (;;) {
    const size_t slash = path.find('/', start);
    if (slash == std::string::npos) break;
    const std::string part = path.substr(start, slash - start);
    start = slash + 1;
    if (part.empty() || part == ".") continue;
    if (++components > kMaxComponents) return Fail(dir, "too many directories");
    const int next = openat(dir, part.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (next < 0) {
      const int err = errno;
      close(dir);
      struct stat st {};
      const bool link =
          err == ENOTDIR &&
          fstatat(AT_FDCWD, path.substr(0, slash).c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
          S_ISLNK(st.st_mode);
      return Fail(-1, link ? "a symbolic link on the way (" + path.substr(0, slash) +
                                 "): give the real path"
                           : strerror(err));
    }
    close(dir);
    dir = next;
  }
  const std::string name = path.substr(start);
  if (name.empty() || name == "." || name == "..") return Fail(dir, "names a directory");
  const int flags = O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
  int fd = openat(dir, name.c_str(), flags);
  if (fd < 0 && errno == ENOENT && create)
    fd = openat(dir, name.c_str(), flags | O_CREAT | O_EXCL, 0600);
  const int err = errno;
  struct stat st {};
  const bool have_stat = fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
  close(dir);
  if (fd < 0) {
    if (have_stat && !S_ISREG(st.st_mode)) return Fail(-1, Kind(st.st_mode));
    return Fail(-1, strerror(err));
  }
  if (fstat(fd, &st) != 0) return Fail(fd, strerror(errno));
  if (!S_ISREG(st.st_mode)) return Fail(fd, Kind(st.st_mode));
  if (st.st_uid != geteuid()) {
    return Fail(fd, "a file of uid " + std::to_string(st.st_uid) + ", not of this JVM's (" +
                        std::to_string(geteuid()) + "): remove it or choose a path of your own");
  }
  if (st.st_nlink != 1) {
    return Fail(fd, "a file with " + std::to_string(st.st_nlink) + " links (a hard link?)");
  }
  return {fd, {}};
}

}  // namespace vtctx
