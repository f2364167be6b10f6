#include "target/untrustedText.h"

#include <cstdint>

#include "absl/strings/str_format.h"
#include "vtctx/utf8.h"

namespace vtctx::reader {

std::string Printable(absl::string_view text, size_t max_bytes) {
  const bool cut = text.size() > max_bytes;
  std::string_view rest(text.data(), cut ? max_bytes : text.size());
  std::string out;
  while (!rest.empty()) {
    const size_t len = Utf8SequenceLength(rest);
    const auto c0 = static_cast<uint8_t>(rest[0]);
    // C1 controls are U+0080..U+009F: 0xc2 0x80..0x9f in UTF-8.
    const bool c1 = len == 2 && c0 == 0xc2 && static_cast<uint8_t>(rest[1]) < 0xa0;
    if (len == 0 || c1 || (len == 1 && (c0 < 0x20 || c0 == 0x7f || c0 == '\\'))) {
      const size_t n = len == 0 ? 1 : len;
      for (size_t i = 0; i < n; ++i) {
        absl::StrAppendFormat(&out, "\\x%02x", static_cast<uint8_t>(rest[i]));
      }
      rest.remove_prefix(n);
      continue;
    }
    out.append(rest.data(), len);
    rest.remove_prefix(len);
  }
  if (cut) out += "...";
  return out;
}

}  // namespace vtctx::reader
