package io.vtctx.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vtctx.testing.Published;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The per-thread views sliced from the agent's windows are exactly the records the carriers
 * publish: for many concurrently live virtual threads (their records spread over several 1 MiB
 * windows with 640-byte records), a write through the thread's view is what the carrier publishes.
 */
@Tag("agent")
class RecordViewsTest {
  @BeforeAll
  static void setUp() {
    assertTrue(Published.init(), "agent not loaded");
  }

  @Test
  void windowsAreOnlyForPoolRecords() {
    assertNull(RecordViews.viewOf(0, 64));
    assertNull(AgentNatives.recordWindow(4096)); // not a pool address
    long record = AgentNatives.currentRecord();
    ByteBuffer window = AgentNatives.recordWindow(record);
    assertNotNull(window);
    assertEquals((1 << RecordViews.WINDOW_SHIFT) + 640, window.capacity());
  }

  @Test
  void viewsOfLiveThreadsAreTheirPublishedRecords() throws Exception {
    int threads = 4000;
    int size = AgentNatives.recordSize();
    Set<Long> windows = ConcurrentHashMap.newKeySet();
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
                    ByteBuffer view = RecordViews.viewOf(address, size);
                    windows.add(address >>> RecordViews.WINDOW_SHIFT);
                    try {
                      allBound.await(); // all records live at once: no reuse between threads
                    } catch (InterruptedException e) {
                      failures.add("interrupted");
                      return;
                    }
                    if (view == null || view.capacity() != size) {
                      failures.add(
                          "no view of size " + size + " for 0x" + Long.toHexString(address));
                      return;
                    }
                    RecordWriter.write(view, id, ~id, id << 8 | 1, 1);
                    Thread.yield(); // maybe another carrier
                    Published p = Published.now();
                    String want =
                        HexFormat.of().toHexDigits(id)
                            + HexFormat.of().toHexDigits(~id)
                            + HexFormat.of().toHexDigits(id << 8 | 1)
                            + "0101";
                    String got = HexFormat.of().formatHex(p.header(), 0, 26);
                    if (p.address() != address || !want.equals(got)) {
                      failures.add("thread " + id + ": published " + p + ", wrote " + want);
                    }
                  });
      allBound.countDown();
    }
    for (Thread t : all) assertTrue(t.join(Duration.ofSeconds(120)), "thread did not finish");
    assertEquals(List.of(), failures.subList(0, Math.min(5, failures.size())));
    System.out.println("RecordViewsTest: " + threads + " threads, " + windows.size() + " windows");
    if (size == 640) assertTrue(windows.size() >= 2, "640-byte records should span windows");
  }
}
