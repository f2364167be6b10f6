package io.vtctx.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetEncoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The Java UTF-8 conversion against the JDK's encoder set up like the agent's conversion (unpaired
 * surrogates become U+FFFD), and truncation against "the longest whole-character prefix".
 */
class Utf8Test {
  private static final String[] PIECES = {
    "a",
    "Z",
    "/",
    "\u0000",
    "\u007f",
    "\u0080",
    "\u00e9",
    "\u07ff",
    "\u0800",
    "\u20ac",
    "\uffff",
    "\ud83d\ude00",
    "\udbff\udfff",
    "\ud800",
    "\udc00",
    "\ud800\ud800",
    "\udc00\ud800",
  };

  /** The reference: JDK encoder, unpaired surrogates replaced by U+FFFD's bytes. */
  static byte[] reference(String s) {
    CharsetEncoder e =
        StandardCharsets.UTF_8
            .newEncoder()
            .onMalformedInput(CodingErrorAction.REPLACE)
            .onUnmappableCharacter(CodingErrorAction.REPLACE)
            .replaceWith(new byte[] {(byte) 0xef, (byte) 0xbf, (byte) 0xbd});
    try {
      ByteBuffer b = e.encode(CharBuffer.wrap(s));
      byte[] out = new byte[b.remaining()];
      b.get(out);
      return out;
    } catch (CharacterCodingException x) {
      throw new AssertionError(x);
    }
  }

  /** The longest prefix of valid UTF-8 {@code utf8} of at most max bytes on a char boundary. */
  static int prefix(byte[] utf8, int max) {
    if (utf8.length <= max) return utf8.length;
    int n = max;
    while (n > 0 && (utf8[n] & 0xc0) == 0x80) n--;
    return n;
  }

  static String random(SplittableRandom rnd, int pieces) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < pieces; i++) b.append(PIECES[rnd.nextInt(PIECES.length)]);
    return b.toString();
  }

  @Test
  void encodesLikeTheReferenceAndCutsOnlyAtCharacterBoundaries() {
    SplittableRandom rnd = new SplittableRandom(4947);
    ByteBuffer out = ByteBuffer.allocateDirect(1024);
    for (int i = 0; i < 20000; i++) {
      String s = random(rnd, rnd.nextInt(0, 120));
      byte[] want = reference(s);
      int length = Utf8.length(s, 300);
      if (want.length <= 300) {
        assertEquals(want.length, length, s);
      } else {
        assertTrue(length > 300, s);
      }
      int max = rnd.nextInt(0, 300);
      out.clear();
      byte[] guard = new byte[1024];
      Arrays.fill(guard, (byte) 0x5a);
      out.put(0, guard);
      int n = Utf8.encode(s, out, 7, max);
      int expected = prefix(want, max);
      assertEquals(expected, n, "length for max " + max + ": " + s);
      byte[] got = new byte[n];
      out.get(7, got);
      assertArrayEquals(Arrays.copyOf(want, n), got, s);
      assertEquals(0x5a, out.get(6), "wrote before the start");
      assertEquals(0x5a, out.get(7 + n), "wrote past the prefix");
    }
  }

  @Test
  void edgeCases() {
    ByteBuffer out = ByteBuffer.allocate(16);
    assertEquals(0, Utf8.encode("", out, 0, 16));
    assertEquals(0, Utf8.encode("\ud83d\ude00", out, 0, 3), "a 4-byte character is never split");
    assertEquals(4, Utf8.encode("\ud83d\ude00", out, 0, 4));
    assertEquals(3, Utf8.encode("\ud800", out, 0, 16), "unpaired high surrogate: U+FFFD");
    assertEquals(0, Utf8.encode("\u20ac", out, 0, 2));
    assertEquals(1, Utf8.encode("\u0000", out, 0, 16), "U+0000 is one byte (not modified UTF-8)");
    assertEquals(0, Utf8.length("", 255));
    assertEquals(256, Utf8.length("x".repeat(1000), 255), "counting stops past the limit");
    assertEquals(255, Utf8.length("\u00e9".repeat(127) + "x", 255));
  }
}
