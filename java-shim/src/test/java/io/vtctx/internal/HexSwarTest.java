package io.vtctx.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The unchecked 8-digit decoder against the checked char-by-char one, for every hex digit. */
class HexSwarTest {
  private static final String DIGITS = "0123456789abcdefABCDEF";

  private static String hex(SplittableRandom r, int n, boolean upper) {
    StringBuilder b = new StringBuilder(n);
    for (int i = 0; i < n; i++) {
      int d = r.nextInt(16);
      b.append((char) (d < 10 ? '0' + d : (upper && r.nextBoolean() ? 'A' : 'a') + d - 10));
    }
    return b.toString();
  }

  private static void assertSameIds(String trace, String span) {
    IdCache.Ids checked = new IdCache().load(null, trace, span, 1, false, null);
    IdCache.Ids digits = new IdCache().load(null, trace, span, 1, true, null);
    assertEquals(checked.traceHigh(), digits.traceHigh(), trace);
    assertEquals(checked.traceLow(), digits.traceLow(), trace);
    assertEquals(checked.span(), digits.span(), span);
  }

  @Test
  void decodesRandomIdsLikeTheCheckedPath() {
    SplittableRandom r = new SplittableRandom(4947);
    for (int i = 0; i < 20_000; i++) {
      assertSameIds(hex(r, 32, i % 2 == 0), hex(r, 16, i % 3 == 0));
    }
  }

  @Test
  void everyDigitAtEveryPosition() {
    String trace = "4bf92f3577b34da6a3ce929d0e0e4736";
    String span = "00f067aa0ba902b7";
    for (char c : DIGITS.toCharArray()) {
      for (int pos = 0; pos < 48; pos++) {
        if (pos < 32) {
          assertSameIds(trace.substring(0, pos) + c + trace.substring(pos + 1), span);
        } else {
          assertSameIds(trace, span.substring(0, pos - 32) + c + span.substring(pos - 31));
        }
      }
    }
  }

  @Test
  void bothPackingsAgreeOnEveryDigitAtEveryPosition() {
    // decode8Digits uses one of the two (CpuFeatures); the ids tests above cover that one, this
    // covers the other on this machine. Random digit words, plus each digit in each byte.
    SplittableRandom r = new SplittableRandom(25);
    for (int i = 0; i < 200_000; i++) {
      long word = 0;
      for (int b = 0; b < 8; b++) word = (word << 8) | DIGITS.charAt(r.nextInt(DIGITS.length()));
      assertEquals(HexSwar.decode8DigitsShift(word), HexSwar.decode8DigitsCompress(word));
    }
    for (char c : DIGITS.toCharArray()) {
      for (int b = 0; b < 8; b++) {
        long word = 0x3030303030303030L | ((long) (c ^ '0') << (8 * b));
        long value = (long) Character.digit(c, 16) << (4 * b);
        assertEquals(value, HexSwar.decode8DigitsShift(word), c + "@" + b);
        assertEquals(value, HexSwar.decode8DigitsCompress(word), c + "@" + b);
      }
    }
  }

  @Test
  void allOnesAndZeros() {
    assertEquals(0xffffffffL, HexSwar.decode8Digits(0x6666666666666666L)); // "ffffffff"
    assertEquals(0xffffffffL, HexSwar.decode8Digits(0x4646464646464646L)); // "FFFFFFFF"
    assertEquals(0L, HexSwar.decode8Digits(0x3030303030303030L)); // "00000000"
    assertEquals(0x09a0f1b2L, HexSwar.decode8Digits(0x3039613066316232L)); // "09a0f1b2"
  }
}
