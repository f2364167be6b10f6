// absl::Status from errno, with the failing operation named: "open /x: No such file or directory".
// (absl 20220623 has ErrnoToStatusCode but no ErrnoToStatus.)
#ifndef VTCTX_READER_ERRNO_STATUS_H_
#define VTCTX_READER_ERRNO_STATUS_H_

#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace vtctx::reader {

inline absl::Status ErrnoStatus(int error_number, absl::string_view what) {
  return absl::Status(absl::ErrnoToStatusCode(error_number),
                      absl::StrCat(what, ": ", std::strerror(error_number)));
}

}  // namespace vtctx::reader

#endif  // VTCTX_READER_ERRNO_STATUS_H_
