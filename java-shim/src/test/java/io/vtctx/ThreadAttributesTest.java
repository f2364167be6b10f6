package io.vtctx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vtctx.internal.TestNatives;
import io.vtctx.testing.Published;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * ThreadAttributes under the agent, checked in what the CARRIER publishes (record_size bytes
 * through otel_thread_ctx_v1): entries byte-exact across parks and remounts, truncation at UTF-8
 * boundaries, the index cache, and concurrent registration.
 */
@Tag("agent")
class ThreadAttributesTest {
  private static int recordSize;

  @BeforeAll
  static void setUp() {
    assertTrue(Published.init(), "agent not loaded");
    recordSize = TestNatives.recordSize();
  }

  private static Published published() {
    return Published.now(recordSize);
  }

  /** Runs body on a fresh virtual thread and rethrows what it threw. */
  private static void onVirtualThread(Runnable body) throws Exception {
    List<Throwable> failure = new CopyOnWriteArrayList<>();
    Thread t = Thread.ofVirtual().uncaughtExceptionHandler((th, e) -> failure.add(e)).start(body);
    assertTrue(t.join(Duration.ofSeconds(60)), "test thread did not finish");
    if (!failure.isEmpty()) throw new AssertionError(failure.get(0));
  }

  @Test
  void entriesArePublishedByTheCarrierAcrossRemounts() throws Exception {
    int method = ThreadAttributes.registerKey("test.method");
    int route = ThreadAttributes.registerKey("test.route");
    assertTrue(method >= 0 && route >= 0 && method != route);
    onVirtualThread(
        () -> {
          long record = ThreadContext.recordAddress();
          ThreadContext.setHex("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7", 1);
          assertEquals(3, ThreadAttributes.set(method, "GET"));
          assertEquals(9, ThreadAttributes.set(route, "/api/test"));
          assertEquals(4, ThreadAttributes.set(method, "POST"));
          for (int i = 0; i < 50; i++) {
            if (i % 2 == 0) Thread.yield();
            else LockSupport.parkNanos(100_000);
            Published p = published();
            assertEquals(record, p.address(), "the carrier publishes the thread's record");
            assertEquals(1, p.valid());
            assertEquals(Map.of(route, "/api/test", method, "POST"), p.attributes());
            // The new value was appended: route's entry first, then method's.
            byte[] expected = concat(entry(route, "/api/test"), entry(method, "POST"));
            assertEquals(
                java.util.HexFormat.of().formatHex(expected),
                java.util.HexFormat.of().formatHex(p.attrsData()));
          }
          ThreadAttributes.remove(method);
          assertEquals(Map.of(route, "/api/test"), published().attributes());
          ThreadContext.clear();
          Published p = published();
          assertEquals(0, p.valid(), "attributes never make a record valid");
          assertEquals(Map.of(route, "/api/test"), p.attributes(), "clear keeps attributes");
        });
  }

  @Test
  void valuesAreCutAtUtf8BoundariesWithinTheRecord() throws Exception {
    int key = ThreadAttributes.registerKey("test.long");
    onVirtualThread(
        () -> {
          int room = Math.min(255, recordSize - 28 - 2);
          for (String ch : new String[] {"a", "\u00e9", "\u20ac", "\ud83d\ude00"}) {
            int per = ch.getBytes(StandardCharsets.UTF_8).length;
            int stored = ThreadAttributes.set(key, ch.repeat(400));
            assertEquals(room / per * per, stored, ch);
            Thread.yield();
            assertEquals(Map.of(key, ch.repeat(stored / per)), published().attributes(), ch);
          }
          // A 4-byte character right at the cut is left out whole.
          String s = "x".repeat(room - 1) + "\ud83d\ude00";
          assertEquals(room - 1, ThreadAttributes.set(key, s));
          // Unpaired surrogates are U+FFFD (3 bytes), as the agent converts them.
          assertEquals(5, ThreadAttributes.set(key, "a\ud800b"));
          assertEquals(Map.of(key, "a\ufffdb"), published().attributes());
          ThreadAttributes.remove(key);
          assertEquals(Map.of(), published().attributes());
        });
  }

  @Test
  void registrationIsCachedAndChecked() {
    int a = ThreadAttributes.registerKey("test.cached");
    assertEquals(a, ThreadAttributes.registerKey("test.cached"));
    assertEquals(a, TestNatives.registerAttributeKey("test.cached"), "the agent agrees");
    assertThrows(NullPointerException.class, () -> ThreadAttributes.registerKey(null));
    assertThrows(IllegalArgumentException.class, () -> ThreadAttributes.registerKey(""));
    assertThrows(
        IllegalArgumentException.class, () -> ThreadAttributes.registerKey("k".repeat(256)));
    assertThrows(
        IllegalArgumentException.class,
        () -> ThreadAttributes.registerKey("\u00e9".repeat(128))); // 256 UTF-8 bytes
    assertTrue(ThreadAttributes.registerKey("k".repeat(255)) >= 0);
    assertEquals(-1, ThreadAttributes.set(-1, "x"), "-1 (a failed registration) is a no-op");
    assertEquals(-1, ThreadAttributes.set(254, "x"), "an index nobody registered");
  }

  @Test
  void concurrentRegistrationGivesOneIndexPerKey() throws Exception {
    int threads = 32;
    int keys = 40;
    Map<String, Set<Integer>> seen = new ConcurrentHashMap<>();
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> all = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      final int offset = t;
      Runnable body =
          () -> {
            try {
              start.await();
            } catch (InterruptedException e) {
              return;
            }
            for (int i = 0; i < keys; i++) {
              String name = "test.concurrent." + ((i + offset) % keys); // different orders
              seen.computeIfAbsent(name, n -> ConcurrentHashMap.newKeySet())
                  .add(ThreadAttributes.registerKey(name));
            }
          };
      all.add(t % 2 == 0 ? Thread.ofVirtual().start(body) : Thread.ofPlatform().start(body));
    }
    start.countDown();
    for (Thread t : all) assertTrue(t.join(Duration.ofSeconds(60)));
    assertEquals(keys, seen.size());
    Set<Integer> indexes = new TreeSet<>();
    for (Map.Entry<String, Set<Integer>> e : seen.entrySet()) {
      assertEquals(1, e.getValue().size(), e.getKey() + " got " + e.getValue());
      int index = e.getValue().iterator().next();
      assertTrue(index >= 0, e.getKey());
      assertEquals(index, TestNatives.registerAttributeKey(e.getKey()), "agent disagrees");
      indexes.add(index);
    }
    assertEquals(keys, indexes.size(), "two keys share an index");
    assertEquals(keys - 1, Collections.max(indexes) - Collections.min(indexes), "not dense");
  }

  static byte[] entry(int key, String value) {
    byte[] v = value.getBytes(StandardCharsets.UTF_8);
    byte[] e = new byte[2 + v.length];
    e[0] = (byte) key;
    e[1] = (byte) v.length;
    System.arraycopy(v, 0, e, 2, v.length);
    return e;
  }

  static byte[] concat(byte[]... parts) {
    int n = 0;
    for (byte[] p : parts) n += p.length;
    byte[] out = new byte[n];
    int at = 0;
    for (byte[] p : parts) {
      System.arraycopy(p, 0, out, at, p.length);
      at += p.length;
    }
    return out;
  }
}
