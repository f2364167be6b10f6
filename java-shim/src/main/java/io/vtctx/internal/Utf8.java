package io.vtctx.internal;

import java.nio.ByteBuffer;

/**
 * UTF-8 of Java strings as the agent converts them (protocol/include/vtctx/utf8.h Utf16ToUtf8):
 * real UTF-8, not JNI's modified UTF-8 (a supplementary character is one 4-byte sequence, U+0000
 * one byte), and unpaired surrogates become U+FFFD (String.getBytes would write '?'). Bounded
 * conversions stop before the first character that does not fit whole, so a cut never splits a
 * character.
 */
public final class Utf8 {
  private static final int REPLACEMENT = 0xfffd;

  private Utf8() {}

  /**
   * The UTF-8 length of {@code s} if it is at most {@code limit}; otherwise some number above
   * {@code limit} (counting stops there).
   */
  public static int length(String s, int limit) {
    int bytes = 0;
    for (int i = 0, n = s.length(); i < n && bytes <= limit; i++) {
      char c = s.charAt(i);
      if (c < 0x80) {
        bytes += 1;
      } else if (c < 0x800) {
        bytes += 2;
      } else if (Character.isHighSurrogate(c)
          && i + 1 < n
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        bytes += 4;
        i++;
      } else {
        bytes += 3; // BMP character, or an unpaired surrogate written as U+FFFD
      }
    }
    return bytes;
  }

  /**
   * Writes the longest prefix of {@code s} whose UTF-8 fits in {@code max} bytes at {@code
   * out[at..]} and returns its length in bytes. Plain (unordered) stores: callers order them.
   */
  public static int encode(String s, ByteBuffer out, int at, int max) {
    int w = 0;
    for (int i = 0, n = s.length(); i < n; i++) {
      char c = s.charAt(i);
      if (c < 0x80) {
        if (w == max) break;
        out.put(at + w++, (byte) c);
        continue;
      }
      int cp = c;
      if (Character.isSurrogate(c)) {
        if (Character.isHighSurrogate(c)
            && i + 1 < n
            && Character.isLowSurrogate(s.charAt(i + 1))) {
          cp = Character.toCodePoint(c, s.charAt(i + 1));
        } else {
          cp = REPLACEMENT;
        }
      }
      int len = cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
      if (max - w < len) break;
      switch (len) {
        case 2 -> {
          out.put(at + w, (byte) (0xc0 | (cp >> 6)));
          out.put(at + w + 1, (byte) (0x80 | (cp & 0x3f)));
        }
        case 3 -> {
          out.put(at + w, (byte) (0xe0 | (cp >> 12)));
          out.put(at + w + 1, (byte) (0x80 | ((cp >> 6) & 0x3f)));
          out.put(at + w + 2, (byte) (0x80 | (cp & 0x3f)));
        }
        default -> {
          out.put(at + w, (byte) (0xf0 | (cp >> 18)));
          out.put(at + w + 1, (byte) (0x80 | ((cp >> 12) & 0x3f)));
          out.put(at + w + 2, (byte) (0x80 | ((cp >> 6) & 0x3f)));
          out.put(at + w + 3, (byte) (0x80 | (cp & 0x3f)));
          i++; // the low surrogate
        }
      }
      w += len;
    }
    return w;
  }
}
