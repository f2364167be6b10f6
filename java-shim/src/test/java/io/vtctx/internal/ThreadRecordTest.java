package io.vtctx.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vtctx.testing.Published;
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
 * A thread's {@link ThreadRecord} writes its own record and nothing else: the view the agent hands
 * out is exactly the calling thread's record, and for thousands of concurrently live virtual
 * threads each write is byte for byte what the carrier publishes, at the thread's own record.
 */
@Tag("agent")
class ThreadRecordTest {
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

  /** The view covers the calling thread's record and nothing beyond it. */
  @Test
  void theViewIsExactlyTheOwnRecord() throws Exception {
    ByteBuffer view = AgentNatives.currentRecordBuffer();
    assertNotNull(view);
    assertEquals(AgentNatives.recordSize(), view.capacity());
    assertTrue(view.isDirect());
    long address = AgentNatives.currentRecord();
    // A write through the view is what this thread's carrier publishes, at this thread's record.
    ThreadRecord.current().publish(
        0x0102030405060708L, 0x090a0b0c0d0e0f10L, 0x1112131415161718L, 1);
    Published p = Published.now();
    assertEquals(address, p.address());
    assertEquals(0x11, view.get(16));
    Thread.ofVirtual()
        .start(
            () -> {
              ByteBuffer other = AgentNatives.currentRecordBuffer();
              assertNotNull(other);
              assertEquals(AgentNatives.recordSize(), other.capacity());
              other.put(16, (byte) 0x77); // its own record: not this thread's
            })
        .join();
    assertEquals(0x11, view.get(16), "another thread's view reached this thread's record");
  }

  @Test
  void writesOfLiveThreadsAreWhatTheirCarriersPublish() throws Exception {
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
                    ThreadRecord record = ThreadRecord.current();
                    long address = AgentNatives.currentRecord();
                    try {
                      allBound.await(); // all records live at once: no reuse between threads
                    } catch (InterruptedException e) {
                      failures.add("interrupted");
                      return;
                    }
                    if (record == null) {
                      failures.add("thread " + id + ": no record");
                      return;
                    }
                    record.publish(id, ~id, id << 8 | 1, 1);
                    Thread.yield(); // maybe another carrier
                    check(failures, id, address, hex(id, ~id, id << 8 | 1) + "0101");
                    // Span change in the same trace: only the span-id is rewritten.
                    record.publish(id, ~id, id << 8 | 2, 0);
                    Thread.yield();
                    check(failures, id, address, hex(id, ~id, id << 8 | 2) + "0100");
                    record.publish(0L, 0L, 0L, 0); // all-zero ids: no context
                    check(failures, id, address, hex(0, 0, 0) + "0000");
                  });
      allBound.countDown();
    }
    for (Thread t : all) assertTrue(t.join(Duration.ofSeconds(120)), "thread did not finish");
    assertEquals(List.of(), failures.subList(0, Math.min(5, failures.size())));
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
