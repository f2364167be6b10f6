package io.vtctx.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The SWAR decoder against the char-by-char one: same value, same verdict, for every byte. */
class HexSwarTest {
  private static String hex(SplittableRandom r, int n, boolean upper) {
    StringBuilder b = new StringBuilder(n);
    for (int i = 0; i < n; i++) {
      int d = r.nextInt(16);
      b.append((char) (d < 10 ? '0' + d : (upper && r.nextBoolean() ? 'A' : 'a') + d - 10));
    }
    return b.toString();
  }

  @Test
  void fastPathDecodesLikeTheCharPath() {
    SplittableRandom r = new SplittableRandom(4947);
    for (int i = 0; i < 20_000; i++) {
      String trace = hex(r, 32, i % 2 == 0);
      String span = hex(r, 16, i % 3 == 0);
      IdCache slow = new IdCache();
      IdCache fast = new IdCache();
      assertTrue(slow.load(null, trace, span, 1, false));
      assertTrue(fast.load(null, trace, span, 1, true), trace + " " + span);
      assertEquals(slow.traceHigh(), fast.traceHigh(), trace);
      assertEquals(slow.traceLow(), fast.traceLow(), trace);
      assertEquals(slow.span(), fast.span(), span);
    }
  }

  @Test
  void everyNonHexByteAtEveryPositionIsRejected() {
    String trace = "4bf92f3577b34da6a3ce929d0e0e4736";
    String span = "00f067aa0ba902b7";
    for (int c = 0; c < 256; c++) {
      boolean isHex = Character.digit((char) c, 16) >= 0 && c < 128;
      for (int pos = 0; pos < 48; pos++) {
        String t = trace;
        String s = span;
        if (pos < 32) {
          t = trace.substring(0, pos) + (char) c + trace.substring(pos + 1);
        } else {
          s = span.substring(0, pos - 32) + (char) c + span.substring(pos - 31);
        }
        IdCache slow = new IdCache();
        IdCache fast = new IdCache();
        boolean slowOk = slow.load(null, t, s, 0, false);
        boolean fastOk = fast.load(null, t, s, 0, true);
        assertEquals(isHex, slowOk, "char " + c + " at " + pos);
        assertEquals(slowOk, fastOk, "char " + c + " at " + pos);
        if (fastOk) {
          assertEquals(slow.traceHigh(), fast.traceHigh());
          assertEquals(slow.traceLow(), fast.traceLow());
          assertEquals(slow.span(), fast.span());
        }
      }
    }
  }

  @Test
  void allOnesAndZeros() {
    assertEquals(0xffffffffL, HexSwar.decode8(0x6666666666666666L)); // "ffffffff"
    assertEquals(0xffffffffL, HexSwar.decode8(0x4646464646464646L)); // "FFFFFFFF"
    assertEquals(0L, HexSwar.decode8(0x3030303030303030L)); // "00000000"
    assertEquals(0x09a0f1b2L, HexSwar.decode8(0x3039613066316232L)); // "09a0f1b2"
    assertFalse(HexSwar.decode8(0x3030303030303067L) >= 0); // ...'g'
  }
}
