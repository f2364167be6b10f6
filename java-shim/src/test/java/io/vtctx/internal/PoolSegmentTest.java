package io.vtctx.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vtctx.testing.Published;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Writes through the pool segment land in the thread's own record, byte for byte what the carrier
 * publishes, and the segment is used exactly when it should be: on Java 22+ unless
 * -Dio.vtctx.poolSegment=false (one Maven execution runs every agent test that way).
 */
@Tag("agent")
class PoolSegmentTest {
  private static final boolean EXPECTED =
      Runtime.version().feature() >= 22
          && Boolean.parseBoolean(System.getProperty("io.vtctx.poolSegment", "true"));

  @BeforeAll
  static void setUp() {
    assertTrue(Published.init(), "agent not loaded");
  }

  /** A run that names its Java release (-Dvtctx.test.javaFeature, e.g. the Java 21 run) has it. */
  @Test
  void runsOnTheRequestedJava() {
    String requested = System.getProperty("vtctx.test.javaFeature");
    if (requested != null) {
      assertEquals(Integer.parseInt(requested), Runtime.version().feature(), "Java release");
    }
  }

  @Test
  void usedWhereAvailable() {
    assertEquals(EXPECTED, PoolSegment.available());
    ThreadRecord record = ThreadRecord.current();
    assertNotNull(record);
    long expected = EXPECTED ? AgentNatives.currentRecord() - windowBase() : -1;
    assertEquals(expected, record.poolOffset());
  }

  @Test
  void offsetsOnlyForRecordsInTheWindow() {
    int size = window().capacity();
    assertEquals(1, Integer.bitCount(size), "window size " + size);
    if (!EXPECTED) {
      assertEquals(-1, PoolSegment.offsetOf(AgentNatives.currentRecord()));
      return;
    }
    long base = windowBase();
    long record = AgentNatives.currentRecord();
    assertEquals(record - base, PoolSegment.offsetOf(record));
    assertEquals(0, PoolSegment.offsetOf(base));
    assertEquals(size - 64, PoolSegment.offsetOf(base + size - 64)); // the last record slot
    assertEquals(-1, PoolSegment.offsetOf(base + size)); // beyond the window
    assertEquals(-1, PoolSegment.offsetOf(base - 64));
    assertEquals(-1, PoolSegment.offsetOf(record + 8)); // not a record's start
    assertEquals(-1, PoolSegment.offsetOf(0));
  }

  @Test
  void writesAreWhatTheCarrierPublishes() throws Exception {
    if (!EXPECTED) return; // the view path is covered by RecordViewsTest
    int threads = 3000;
    List<String> failures = new CopyOnWriteArrayList<>();
    CountDownLatch allBound = new CountDownLatch(threads);
    Thread[] all = new Thread[threads];
    for (int i = 0; i < threads; i++) {
      final long id = i + 1;
      all[i] =
          Thread.ofVirtual()
              .start(
                  () -> {
                    long address = AgentNatives.currentRecord();
                    long offset = PoolSegment.offsetOf(address);
                    try {
                      allBound.await(); // all records live at once: no reuse between threads
                    } catch (InterruptedException e) {
                      failures.add("interrupted");
                      return;
                    }
                    if (offset < 0) {
                      failures.add("no offset for 0x" + Long.toHexString(address));
                      return;
                    }
                    PoolSegment.write(offset, true, id, ~id, id << 8 | 1, 1);
                    Thread.yield(); // maybe another carrier
                    check(failures, id, address, hex(id, ~id, id << 8 | 1) + "0101");
                    // Span change in the same trace: the trace-id words are left as they are.
                    PoolSegment.write(offset, false, 0, 0, id << 8 | 2, 0);
                    Thread.yield();
                    check(failures, id, address, hex(id, ~id, id << 8 | 2) + "0100");
                    PoolSegment.clear(offset);
                    check(failures, id, address, hex(0, 0, 0) + "0000");
                  });
      allBound.countDown();
    }
    for (Thread t : all) assertTrue(t.join(Duration.ofSeconds(120)), "thread did not finish");
    assertEquals(List.of(), failures.subList(0, Math.min(5, failures.size())));
  }

  // The window's address, read independently of PoolSegment (Java 22+ only).
  private static long windowBase() {
    try {
      Class<?> segment = Class.forName("java.lang.foreign.MemorySegment");
      Object s = segment.getMethod("ofBuffer", Buffer.class).invoke(null, window());
      return (long) segment.getMethod("address").invoke(s);
    } catch (ReflectiveOperationException e) {
      throw new AssertionError(e);
    }
  }

  private static ByteBuffer window() {
    ByteBuffer window = AgentNatives.recordPoolWindow();
    assertNotNull(window);
    return window;
  }

  private static String hex(long high, long low, long span) {
    HexFormat h = HexFormat.of();
    return h.toHexDigits(high) + h.toHexDigits(low) + h.toHexDigits(span);
  }

  private static void check(List<String> failures, long id, long address, String want) {
    Published p = Published.now();
    String got = HexFormat.of().formatHex(p.header(), 0, 26);
    if (p.address() != address || !want.equals(got)) {
      failures.add("thread " + id + ": published " + p + ", want " + want);
    }
  }
}
