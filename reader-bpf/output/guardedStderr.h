// The reader's diagnostics reach a terminal, often root's, and many of them quote a target's text
// (a module path, a JVM's version string, a reply). Each quote goes through untrustedText.h where
// it is made; this guard is the net under all of them, libbpf's messages included: stderr is
// replaced by a stream that lets through only what untrustedText.h shows, plus newlines and tabs,
// and writes every other unit as \xNN (a backslash is left as it is, so text escaped once is not
// escaped again). A UTF-8 character that a buffer boundary splits is held until its end arrives.
#ifndef VTCTX_READER_GUARDED_STDERR_H_
#define VTCTX_READER_GUARDED_STDERR_H_

#include <cstdio>
#include <string>

#include "absl/strings/string_view.h"

namespace vtctx::reader {

// Replaces `stderr` by the guarded stream (unbuffered, like stderr), writing to fd 2. Once, at
// the start of main; a failure leaves stderr as it was.
void GuardStderr();

// What the guard writes for `text`, with `carry` holding the start of a UTF-8 character that
// `text` ends inside (given back at the front of the next call). For tests.
std::string GuardText(absl::string_view text, std::string& carry);

}  // namespace vtctx::reader

#endif  // VTCTX_READER_GUARDED_STDERR_H_
