// Text that comes from a target (a JVM's reply, an agent's report, a file or module path it
// names) is printed only through Printable(): a hostile process must not be able to move the
// user's cursor, recolour the terminal or forge a line of the reader's own output.
#ifndef VTCTX_READER_UNTRUSTED_TEXT_H_
#define VTCTX_READER_UNTRUSTED_TEXT_H_

#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"

namespace vtctx::reader {

// `text` with every C0 and C1 control character (newlines included), DEL, backslash and every
// byte of invalid UTF-8 written as \xNN; other UTF-8 kept. At most `max_bytes` of `text` are
// shown, then "...".
std::string Printable(absl::string_view text, size_t max_bytes = 512);

}  // namespace vtctx::reader

#endif  // VTCTX_READER_UNTRUSTED_TEXT_H_
