package io.vtctx.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.management.HotSpotDiagnosticMXBean;
import io.vtctx.testing.Published;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * With the agent, the id decoder reads a Latin-1 String's own bytes ({@link StringBytes}) unless
 * -Dio.vtctx.stringBytes=false, never a UTF-16 String's (one Maven execution runs every agent test
 * with -XX:-CompactStrings, where every String is UTF-16 and the digits are copied), and decodes
 * the same ids either way.
 */
@Tag("agent")
class StringBytesTest {
  private static final boolean ENABLED =
      Boolean.parseBoolean(System.getProperty("io.vtctx.stringBytes", "true"));
  private static final boolean COMPACT_STRINGS =
      Boolean.parseBoolean(
          ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class)
              .getVMOption("CompactStrings")
              .getValue());

  @BeforeAll
  static void setUp() {
    assertTrue(Published.init(), "agent not loaded");
  }

  @Test
  void availableUnlessTurnedOff() {
    assertEquals(ENABLED, StringBytes.available());
  }

  @Test
  void readsALatin1StringInPlace() {
    String s = new String("4bf92f3577b34da6a3ce929d0e0e4736".toCharArray());
    byte[] bytes = StringBytes.latin1(s);
    if (!ENABLED || !COMPACT_STRINGS) {
      assertNull(bytes, "no String bytes to read as Latin-1 here");
      return;
    }
    assertNotNull(bytes);
    assertArrayEquals(s.getBytes(StandardCharsets.ISO_8859_1), bytes);
    assertSame(bytes, StringBytes.latin1(s), "the String's own array, not a copy");
    assertEquals(0, StringBytes.latin1("").length);
  }

  @Test
  void neverReadsAUtf16String() {
    assertNull(StringBytes.latin1("4bf92f3577b34da6a3ce929d0e0e473\u0130"));
    assertNull(StringBytes.latin1("\u20ac"));
  }

  /** Random ids in every case mix, through the decoder's unchecked (hex-promised) path. */
  @Test
  void decodesTheSameIdsEitherWay() {
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
      assertEquals(high, ids.traceHigh(), trace);
      assertEquals(low, ids.traceLow(), trace);
      assertEquals(span, ids.span(), trace);
      assertEquals(i & 0xff, ids.flags());
    }
  }
}
