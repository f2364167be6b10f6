// UTF-8 validation shared by the payload decoder (proto3 strings must be UTF-8) and the output
// formats (invalid bytes are replaced, never copied through).
#ifndef VTCTX_READER_UTF8_H_
#define VTCTX_READER_UTF8_H_

#include <cstddef>

#include "absl/strings/string_view.h"

namespace vtctx::reader {

// Length (1..4) of the well-formed UTF-8 sequence at the start of `s`, 0 if it is not one
// (overlong forms, surrogates, code points above U+10FFFF and truncated sequences are not). `s`
// must not be empty.
size_t Utf8SequenceLength(absl::string_view s);

// Whether all of `s` is well-formed UTF-8.
bool IsValidUtf8(absl::string_view s);

}  // namespace vtctx::reader

#endif  // VTCTX_READER_UTF8_H_
