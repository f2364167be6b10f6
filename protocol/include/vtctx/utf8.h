// The UTF-8 rules of the protocol (docs/protocol.md), the one C++ implementation for writers and
// readers: validation (protobuf readers reject invalid UTF-8 in `string` fields; readers replace
// invalid bytes in output), truncation at a code point boundary (record values are bounded), and a
// bounded UTF-16 -> UTF-8 conversion for runtimes whose strings are UTF-16 (Java). Tested against
// protocol/vectors/utf8.vec.
//
// All functions are pure, allocation-free and async-signal-safe.
#ifndef VTCTX_PROTOCOL_UTF8_H_
#define VTCTX_PROTOCOL_UTF8_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace vtctx {

// Length (1..4) of the well-formed UTF-8 sequence at the start of `s`, 0 if there is none (a
// continuation or 0xf8..0xff byte where a lead byte belongs, a truncated sequence, an overlong
// form, a surrogate or a code point above U+10FFFF). RFC 3629; `s` must not be empty.
constexpr size_t Utf8SequenceLength(std::string_view s) {
  const uint8_t b0 = static_cast<uint8_t>(s[0]);
  if (b0 < 0x80) return 1;
  size_t len;
  uint32_t min;
  if ((b0 & 0xe0) == 0xc0) {
    len = 2, min = 0x80;
  } else if ((b0 & 0xf0) == 0xe0) {
    len = 3, min = 0x800;
  } else if ((b0 & 0xf8) == 0xf0) {
    len = 4, min = 0x10000;
  } else {
    return 0;
  }
  if (s.size() < len) return 0;
  uint32_t cp = b0 & (0x7f >> len);
  for (size_t k = 1; k < len; ++k) {
    const uint8_t c = static_cast<uint8_t>(s[k]);
    if ((c & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (c & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return len;
}

// True if all of `s` is well-formed UTF-8. Protobuf readers reject any other `string`; record
// values must be UTF-8 too.
constexpr bool IsValidUtf8(std::string_view s) {
  while (!s.empty()) {
    const size_t len = Utf8SequenceLength(s);
    if (len == 0) return false;
    s.remove_prefix(len);
  }
  return true;
}

// The length of the longest prefix of the valid UTF-8 string `s` that is at most `max_bytes` long
// and ends on a code point boundary (never splits a multi-byte sequence).
constexpr size_t Utf8PrefixLength(std::string_view s, size_t max_bytes) {
  if (s.size() <= max_bytes) return s.size();
  size_t n = max_bytes;
  // s[n] is the first byte left out; while it continues a sequence, the cut is mid-character.
  while (n > 0 && (static_cast<uint8_t>(s[n]) & 0xc0) == 0x80) --n;
  return n;
}

struct Utf16ToUtf8Result {
  size_t bytes;   // UTF-8 bytes written to `out`
  bool complete;  // every input unit was converted and nothing follows the input
};

// Converts UTF-16 `in[0..n)` to UTF-8 in `out[0..capacity)`, stopping before the first code point
// that does not fit whole (so the result is always valid UTF-8). Unpaired surrogates become
// U+FFFD. `more_follows` says the input window was cut from a longer string: a high surrogate at
// its very end is then the first half of a pair and is left out rather than replaced.
constexpr Utf16ToUtf8Result Utf16ToUtf8(const uint16_t* in, size_t n, bool more_follows, char* out,
                                        size_t capacity) {
  size_t w = 0;
  size_t i = 0;
  while (i < n) {
    uint32_t cp = in[i];
    size_t units = 1;
    if (cp >= 0xd800 && cp <= 0xdbff) {
      if (i + 1 < n && in[i + 1] >= 0xdc00 && in[i + 1] <= 0xdfff) {
        cp = 0x10000 + ((cp - 0xd800) << 10) + (in[i + 1] - 0xdc00);
        units = 2;
      } else if (i + 1 == n && more_follows) {
        return {w, false};  // its low half lies beyond the window
      } else {
        cp = 0xfffd;
      }
    } else if (cp >= 0xdc00 && cp <= 0xdfff) {
      cp = 0xfffd;
    }
    const size_t len = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    if (capacity - w < len) return {w, false};
    switch (len) {
      case 1:
        out[w] = static_cast<char>(cp);
        break;
      case 2:
        out[w] = static_cast<char>(0xc0 | (cp >> 6));
        out[w + 1] = static_cast<char>(0x80 | (cp & 0x3f));
        break;
      case 3:
        out[w] = static_cast<char>(0xe0 | (cp >> 12));
        out[w + 1] = static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
        out[w + 2] = static_cast<char>(0x80 | (cp & 0x3f));
        break;
      default:
        out[w] = static_cast<char>(0xf0 | (cp >> 18));
        out[w + 1] = static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
        out[w + 2] = static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
        out[w + 3] = static_cast<char>(0x80 | (cp & 0x3f));
        break;
    }
    w += len;
    i += units;
  }
  return {w, !more_follows};
}

}  // namespace vtctx

#endif  // VTCTX_PROTOCOL_UTF8_H_
