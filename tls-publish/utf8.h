// UTF-8 helpers for attribute keys and values: validation (protobuf readers reject invalid UTF-8
// in string fields), truncation at a code point boundary (record values are bounded), and a
// bounded UTF-16 -> UTF-8 conversion for runtimes whose strings are UTF-16 (Java).
//
// All functions are pure, allocation-free and async-signal-safe.
#ifndef VTCTX_TLS_PUBLISH_UTF8_H_
#define VTCTX_TLS_PUBLISH_UTF8_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace vtctx {

// True if `s` is well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, <= U+10FFFF).
constexpr bool IsValidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const uint8_t b = static_cast<uint8_t>(s[i]);
    if (b < 0x80) {
      ++i;
      continue;
    }
    size_t extra;
    uint32_t min;
    uint32_t cp;
    if ((b & 0xe0) == 0xc0) {
      extra = 1, min = 0x80, cp = b & 0x1f;
    } else if ((b & 0xf0) == 0xe0) {
      extra = 2, min = 0x800, cp = b & 0x0f;
    } else if ((b & 0xf8) == 0xf0) {
      extra = 3, min = 0x10000, cp = b & 0x07;
    } else {
      return false;  // a continuation byte or 0xf8..0xff where a lead byte belongs
    }
    if (s.size() - i <= extra) return false;  // truncated sequence
    for (size_t k = 1; k <= extra; ++k) {
      const uint8_t c = static_cast<uint8_t>(s[i + k]);
      if ((c & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (c & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
    i += extra + 1;
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

#endif  // VTCTX_TLS_PUBLISH_UTF8_H_
