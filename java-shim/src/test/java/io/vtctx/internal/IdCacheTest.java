package io.vtctx.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HexFormat;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class IdCacheTest {
  private static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
  private static final String SPAN = "00f067aa0ba902b7";

  /** {@code ids} holds the trace-id {@code high}:{@code low} and the span-id {@code span}. */
  private static void assertIds(long high, long low, long span, IdCache.Ids ids, String message) {
    assertEquals(high, ids.traceHigh(), message);
    assertEquals(low, ids.traceLow(), message);
    assertEquals(span, ids.span(), message);
  }

  private static void assertIds(long high, long low, long span, IdCache.Ids ids) {
    assertIds(high, low, span, ids, null);
  }

  @Test
  void decodesTheW3cExample() {
    IdCache.Ids c = new IdCache().load(null, TRACE, SPAN, 1);
    assertIds(0x4bf92f3577b34da6L, 0xa3ce929d0e0e4736L, 0x00f067aa0ba902b7L, c);
    assertEquals(1, c.flags());
  }

  @Test
  void acceptsUppercaseAndAllDigits() {
    IdCache.Ids c =
        new IdCache().load(null, "0123456789ABCDEFabcdef0123456789", "FEDCBA9876543210", 0);
    assertIds(0x0123456789abcdefL, 0xabcdef0123456789L, 0xfedcba9876543210L, c);
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
      assertNull(c.load(key, t, SPAN, 1), t);
      assertNull(c.select(key), "a rejected id must not be cached: " + t);
    }
    assertNull(c.load(key, TRACE, "00f067aa0ba902bG", 1));
    assertNull(c.load(key, TRACE, "00f067aa0ba902b", 1));
    assertNull(c.select(key));
    for (String t : badTraces) assertFalse(IdCache.isHex(t, SPAN), t);
    assertFalse(IdCache.isHex(TRACE, "00f067aa0ba902bG"));
    assertTrue(IdCache.isHex(TRACE, SPAN));
    assertTrue(IdCache.isHex("0123456789ABCDEFabcdef0123456789", "FEDCBA9876543210"));
  }

  /** A load replaces the older entry, and exactly the one it returns. */
  @Test
  void aLoadReplacesTheEntryItReturns() {
    IdCache c = new IdCache();
    Object a = new Object();
    Object b = new Object();
    IdCache.Ids ea = c.load(a, TRACE, SPAN, 1);
    IdCache.Ids eb = c.load(b, TRACE, SPAN, 1);
    assertNotSame(ea, eb);
    assertSame(ea, c.older());
    IdCache.Ids replaced = c.load(new Object(), TRACE, SPAN, 1);
    assertSame(ea, replaced);
    assertNull(c.select(a), "the replaced entry's key is still found");
    assertSame(eb, c.select(b));
  }

  @Test
  void twoEntriesSelectedByIdentity() {
    IdCache c = new IdCache();
    Object parent = new Object();
    Object child = new Object();
    assertNull(c.select(parent));
    assertNotNull(c.load(parent, TRACE, SPAN, 1));
    assertNotNull(c.load(child, TRACE, "1111111111111111", 0));
    IdCache.Ids p = c.select(parent);
    assertEquals(0x00f067aa0ba902b7L, p.span());
    assertEquals(1, p.flags());
    IdCache.Ids ch = c.select(child);
    assertEquals(0x1111111111111111L, ch.span());
    assertEquals(0, ch.flags());
    assertEquals(0xa3ce929d0e0e4736L, ch.traceLow());
    // A third key evicts the least recently used (parent).
    Object other = new Object();
    assertNotNull(c.load(other, "0123456789abcdef0123456789abcdef", "2222222222222222", 1));
    assertNull(c.select(parent));
    assertEquals(0x1111111111111111L, c.select(child).span());
    assertEquals(0x2222222222222222L, c.select(other).span());
    assertNull(c.select(null), "null keys never match");
  }

  @Test
  void aRejectedLoadKeepsBothEntries() {
    IdCache c = new IdCache();
    Object parent = new Object();
    Object child = new Object();
    c.load(parent, TRACE, SPAN, 1);
    c.load(child, TRACE, "1111111111111111", 0);
    assertNull(c.load(new Object(), TRACE, "111111111111111x", 0));
    assertEquals(0x00f067aa0ba902b7L, c.select(parent).span());
    assertEquals(0x1111111111111111L, c.select(child).span());
  }

  @Test
  void sameTraceEntryGivesTheTraceId() {
    IdCache c = new IdCache();
    IdCache.Ids first = c.load(new Object(), TRACE, SPAN, 1);
    assertSame(first, c.recent());
    // The digits passed are ignored when the caller names an entry with the same trace-id.
    String otherDigits = "ffffffffffffffffffffffffffffffff";
    IdCache.Ids second = c.load(new Object(), otherDigits, "1111111111111111", 1, true, first);
    assertSame(second, c.recent());
    assertSame(first, c.older());
    assertIds(0x4bf92f3577b34da6L, 0xa3ce929d0e0e4736L, 0x1111111111111111L, second);
    // From the older entry, the one being replaced, with either decoder.
    for (boolean hexDigits : new boolean[] {true, false}) {
      IdCache.Ids third =
          c.load(new Object(), TRACE, "2222222222222222", 1, hexDigits, c.older());
      assertIds(0x4bf92f3577b34da6L, 0xa3ce929d0e0e4736L, 0x2222222222222222L, third);
    }
  }

  @Test
  void selectAndLoadMoveOnlyTheRecentMark() {
    IdCache c = new IdCache();
    Object a = new Object();
    Object b = new Object();
    IdCache.Ids ea = c.load(a, TRACE, SPAN, 1);
    IdCache.Ids eb = c.load(b, TRACE, "1111111111111111", 1);
    assertNotSame(ea, eb);
    assertSame(eb, c.recent());
    assertSame(ea, c.select(a));
    assertSame(ea, c.recent());
    assertSame(eb, c.older());
    assertSame(a, ea.key());
    // The next load replaces the older entry (b's) in place.
    assertSame(eb, c.load(new Object(), TRACE, "2222222222222222", 0));
    assertNull(c.select(b));
  }

  /**
   * Random ids in both cases through the unchecked (hex-promised) path, which copies the digits out
   * of the Strings (from Latin-1 and, under -XX:-CompactStrings, UTF-16 ones), with and without a
   * same-trace entry.
   */
  @Test
  void decodesRandomIdsThroughTheCopy() {
    SplittableRandom random = new SplittableRandom(4947);
    HexFormat lower = HexFormat.of();
    HexFormat upper = HexFormat.of().withUpperCase();
    IdCache cache = new IdCache();
    for (int i = 0; i < 20000; i++) {
      long high = random.nextLong();
      long low = random.nextLong();
      long span = random.nextLong();
      HexFormat format = (i & 1) == 0 ? lower : upper;
      String trace = format.toHexDigits(high) + format.toHexDigits(low);
      IdCache.Ids ids =
          cache.load(new Object(), trace, format.toHexDigits(span), i & 0xff, true, null);
      assertNotNull(ids, trace);
      assertIds(high, low, span, ids, trace);
      assertEquals(i & 0xff, ids.flags());
      IdCache.Ids child =
          cache.load(new Object(), trace, format.toHexDigits(~span), 1, true, cache.recent());
      assertIds(high, low, ~span, child, trace);
    }
  }
}
