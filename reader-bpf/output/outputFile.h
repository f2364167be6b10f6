// The file `profile --output` names, written by a reader that usually runs as root, often into a
// shared directory (/tmp): another user must not be able to turn the write into one of a file of
// root's. So the last component is never followed when it is a symlink (O_NOFOLLOW: a planted
// link to /etc/shadow or to a root-owned 0600 file is refused, whatever fs.protected_symlinks
// says), and the file must be a regular file (never a FIFO, which would block, nor a device)
// owned by the reader's effective uid with one link (not another user's planted file, not a hard
// link into someone else's). A missing file is created (0666 less the umask, as fopen does); an
// existing one is truncated only after these checks.
#ifndef VTCTX_READER_OUTPUT_FILE_H_
#define VTCTX_READER_OUTPUT_FILE_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace vtctx::reader {

// A write-only, close-on-exec fd of `path`, empty; an Internal error (exit 1) saying what is wrong.
absl::StatusOr<int> OpenOutputFile(const std::string& path);

// OpenOutputFile, then all of `bytes`.
absl::Status WriteOutputFile(const std::string& path, absl::string_view bytes);

}  // namespace vtctx::reader

#endif  // VTCTX_READER_OUTPUT_FILE_H_
