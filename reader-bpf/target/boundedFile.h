// Reading files a target can influence: never through a symlink at the last component, never a
// FIFO, device or socket (opening one could block or act on hardware), never more than a bound.
// Who reads matters as much (targetView.h: a target's own files are read in its view, with its
// credentials); these are the reads themselves.
#ifndef VTCTX_READER_BOUNDED_FILE_H_
#define VTCTX_READER_BOUNDED_FILE_H_

#include <cstddef>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace vtctx::reader {

// openat(dir_fd, path) with O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC and `flags`
// (O_RDONLY, or O_WRONLY | O_CREAT | O_EXCL ...), then fstat: a regular file, else
// FailedPrecondition naming what it is. The fd is the caller's.
absl::StatusOr<int> OpenRegularFile(int dir_fd, const std::string& path, int flags,
                                    unsigned mode = 0600);

// All of `fd` from offset 0, at most `max_bytes` (ResourceExhausted beyond: `what` names it).
absl::StatusOr<std::string> ReadAllBounded(int fd, size_t max_bytes, absl::string_view what);

// OpenRegularFile(O_RDONLY) + ReadAllBounded.
absl::StatusOr<std::string> ReadRegularFile(int dir_fd, const std::string& path, size_t max_bytes);

// A file of the kernel's (/proc, /sys) under `dir`: no type check (procfs files are regular with
// size 0 or not), read to EOF, at most `max_bytes`.
absl::StatusOr<std::string> ReadKernelFile(const std::string& path, size_t max_bytes);

// "a FIFO", "a directory", ... for the file type bits of a st_mode.
const char* FileKind(unsigned mode);

}  // namespace vtctx::reader

#endif  // VTCTX_READER_BOUNDED_FILE_H_
