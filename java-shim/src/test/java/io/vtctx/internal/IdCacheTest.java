package io.vtctx.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class IdCacheTest {
  private static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
  private static final String SPAN = "00f067aa0ba902b7";

  @Test
  void decodesTheW3cExample() {
    IdCache c = new IdCache();
    assertTrue(c.load(null, TRACE, SPAN, 1));
    assertEquals(0x4bf92f3577b34da6L, c.traceHigh());
    assertEquals(0xa3ce929d0e0e4736L, c.traceLow());
    assertEquals(0x00f067aa0ba902b7L, c.span());
    assertEquals(1, c.flags());
  }

  @Test
  void acceptsUppercaseAndAllDigits() {
    IdCache c = new IdCache();
    assertTrue(c.load(null, "0123456789ABCDEFabcdef0123456789", "FEDCBA9876543210", 0));
    assertEquals(0x0123456789abcdefL, c.traceHigh());
    assertEquals(0xabcdef0123456789L, c.traceLow());
    assertEquals(0xfedcba9876543210L, c.span());
  }

  @Test
  void rejectsNonHexAndWrongLengthsWithoutCaching() {
    IdCache c = new IdCache();
    Object key = new Object();
    String[] badTraces = {
      "4bf92f3577b34da6a3ce929d0e0e473g", // 'g'
      "4bf92f3577b34da6a3ce929d0e0e473 ",
      "4bf92f3577b34da6a3ce929d0e0e473\u00e9", // non-ASCII
      "4bf92f3577b34da6a3ce929d0e0e473\u0130", // non-ASCII whose low 7 bits are '0'
      "4bf92f3577b34da6a3ce929d0e0e473\u0080",
      "4bf92f3577b34da6a3ce929d0e0e473/", // just below '0'
      "4bf92f3577b34da6a3ce929d0e0e473:", // just above '9'
      "4bf92f3577b34da6a3ce929d0e0e473",
      "4bf92f3577b34da6a3ce929d0e0e47360",
    };
    for (String t : badTraces) {
      assertFalse(c.load(key, t, SPAN, 1), t);
      assertFalse(c.select(key), "a rejected id must not be cached: " + t);
    }
    assertFalse(c.load(key, TRACE, "00f067aa0ba902bG", 1));
    assertFalse(c.load(key, TRACE, "00f067aa0ba902b", 1));
    assertFalse(c.select(key));
  }

  @Test
  void twoEntriesSelectedByIdentity() {
    IdCache c = new IdCache();
    Object parent = new Object();
    Object child = new Object();
    assertFalse(c.select(parent));
    assertTrue(c.load(parent, TRACE, SPAN, 1));
    assertTrue(c.load(child, TRACE, "1111111111111111", 0));
    assertTrue(c.select(parent));
    assertEquals(0x00f067aa0ba902b7L, c.span());
    assertEquals(1, c.flags());
    assertTrue(c.select(child));
    assertEquals(0x1111111111111111L, c.span());
    assertEquals(0, c.flags());
    assertEquals(0xa3ce929d0e0e4736L, c.traceLow());
    // A third key evicts the least recently used (parent).
    Object other = new Object();
    assertTrue(c.load(other, "0123456789abcdef0123456789abcdef", "2222222222222222", 1));
    assertFalse(c.select(parent));
    assertTrue(c.select(child));
    assertFalse(c.select(null), "null keys never match");
  }

  @Test
  void sameTraceStringReusesTheDecodedTraceId() {
    IdCache c = new IdCache();
    String trace = new String(TRACE.toCharArray());
    assertTrue(c.load(new Object(), trace, SPAN, 1));
    assertTrue(c.load(new Object(), trace, "1111111111111111", 1));
    assertEquals(0x4bf92f3577b34da6L, c.traceHigh());
    assertEquals(0xa3ce929d0e0e4736L, c.traceLow());
    assertEquals(0x1111111111111111L, c.span());
  }
}
