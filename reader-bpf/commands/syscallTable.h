// Syscall names <-> numbers of the host architecture, generated at configure time from the C
// library's <sys/syscall.h> (so the table is right for whatever machine builds the reader).
#ifndef VTCTX_READER_SYSCALL_TABLE_H_
#define VTCTX_READER_SYSCALL_TABLE_H_

#include <optional>

#include "absl/strings/string_view.h"

namespace vtctx::reader {

std::optional<int> SyscallNumber(absl::string_view name);
// "" if the number has no known name.
absl::string_view SyscallName(long nr);

}  // namespace vtctx::reader

#endif  // VTCTX_READER_SYSCALL_TABLE_H_
