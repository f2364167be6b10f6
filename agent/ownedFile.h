// Opening the files an option names (stats=, report=) so that nobody but the JVM's own user can
// redirect the write: a JVM often runs as root, and these paths may lie in shared directories.
//
// The path is walked one component at a time with O_NOFOLLOW: a symlink anywhere is refused
// (resolve it yourself and give the real path). The file must be a regular file (never a FIFO,
// which would block the JVM, nor a device) owned by the process's effective uid with one link
// (not someone's hard link into another file); opening never blocks (O_NONBLOCK). A missing file
// is created exclusively (0600) when `create` is set.
#ifndef VTCTX_AGENT_OWNED_FILE_H_
#define VTCTX_AGENT_OWNED_FILE_H_

#include <string>

namespace vtctx {

struct OwnedFile {
  int fd = -1;        // write-only, close-on-exec; -1 on failure
  std::string error;  // "" or why: "a FIFO", "a file of uid 1000, ...", "No such file ...", ...
};

OwnedFile OpenOwnedFileForWriting(const std::string& path, bool create);

}  // namespace vtctx

#endif  // VTCTX_AGENT_OWNED_FILE_H_
