#include "utf8.h"

#include <cstdint>

namespace vtctx::reader {

size_t Utf8SequenceLength(absl::string_view s) {
  const auto b0 = static_cast<uint8_t>(s[0]);
  size_t len = 0;
  uint32_t min = 0;
  if (b0 < 0x80) return 1;
  if ((b0 & 0xe0) == 0xc0) {
    len = 2;
    min = 0x80;
  } else if ((b0 & 0xf0) == 0xe0) {
    len = 3;
    min = 0x800;
  } else if ((b0 & 0xf8) == 0xf0) {
    len = 4;
    min = 0x10000;
  } else {
    return 0;
  }
  if (s.size() < len) return 0;
  uint32_t cp = b0 & (0x7f >> len);
  for (size_t i = 1; i < len; ++i) {
    const auto b = static_cast<uint8_t>(s[i]);
    if ((b & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return len;
}

bool IsValidUtf8(absl::string_view s) {
  while (!s.empty()) {
    const size_t len = Utf8SequenceLength(s);
    if (len == 0) return false;
    s.remove_prefix(len);
  }
  return true;
}

}  // namespace vtctx::reader
