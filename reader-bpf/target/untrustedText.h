// Text that comes from a target (a JVM's reply, an agent's report, a file or module path, a thread
// name, a symbol or method name, an attribute key or value) reaches an output only through this
// file: a hostile process must not be able to move the user's cursor, recolour the terminal,
// forge a line of the reader's own output or make a structured output (JSON, XML) ill-formed.
//
// One rule decides what may be shown as it is: well-formed UTF-8 that is not a control character.
// Refused, unit by unit: each C0 control (U+0000..U+001F), DEL (U+007F), each C1 control
// (U+0080..U+009F: terminals take U+009B as CSI) and each byte that is not part of a well-formed
// UTF-8 sequence. Every output renders refused units its own way (below, and recordFormat.h's JSON
// strings), all through ScanTargetText.
#ifndef VTCTX_READER_UNTRUSTED_TEXT_H_
#define VTCTX_READER_UNTRUSTED_TEXT_H_

#include <cstddef>
#include <string>

#include "absl/functional/function_ref.h"
#include "absl/strings/string_view.h"

namespace vtctx::reader {

// Calls `keep` with each longest run of shown text and `refuse` with each refused unit (the bytes
// of one control character, or one byte of invalid UTF-8), in order.
void ScanTargetText(absl::string_view text, absl::FunctionRef<void(absl::string_view)> keep,
                    absl::FunctionRef<void(absl::string_view)> refuse);

// True when ScanTargetText would refuse nothing of `text`.
bool IsShowableText(absl::string_view text);

// The length of the longest prefix of `text` of at most `max_bytes` that does not end inside a
// well-formed UTF-8 sequence (a cut never splits a character).
size_t TextPrefixLength(absl::string_view text, size_t max_bytes);

// For lines of text (stderr, the text formats): refused units and backslashes as \xNN, other
// text as it is. At most `max_bytes` of `text` are shown (cut at a character), then "...".
std::string Printable(absl::string_view text, size_t max_bytes = 512);

// For names in separated output (folded stacks, pprof strings, flame-graph frames): refused units
// as '_', at most `max_bytes` of `text` (cut at a character, then "...").
std::string SafeName(absl::string_view text, size_t max_bytes);

}  // namespace vtctx::reader

#endif  // VTCTX_READER_UNTRUSTED_TEXT_H_
