package io.vtctx.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vtctx.ThreadAttributes;
import io.vtctx.ThreadContext;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The Java attribute write path against the agent's native (AgentNatives.setAttribute, the
 * reference), byte for byte on the thread's real record: from the same record bytes, each set is
 * done once by the native and once through ThreadAttributes.set, and the return values and the
 * whole record (record_size bytes) must be identical. Inputs: random keys and values of 1- to
 * 4-byte characters and unpaired surrogates, short and too long (truncation), removals, valid and
 * invalid records, garbage attrs-data and sizes, unregistered indexes; on virtual threads (with
 * remounts between sets) and on a platform thread.
 */
@Tag("agent")
class AttributeNativeEquivalenceTest {
  private static final int KEYS = 6;
  private static final int STEPS = 6000;
  private static final HexFormat HEX = HexFormat.of();
  private static int[] keys;

  @BeforeAll
  static void setUp() {
    assertTrue(ThreadContext.isAgentActive(), "agent not loaded");
    keys = new int[KEYS];
    for (int k = 0; k < KEYS; k++) {
      keys[k] = ThreadAttributes.registerKey("equivalence.k" + k);
      assertTrue(keys[k] >= 0, "key not registered");
    }
  }

  @Test
  void javaWritesWhatTheNativeWrites() throws Exception {
    List<String> failures = new CopyOnWriteArrayList<>();
    AtomicLong compared = new AtomicLong();
    Thread[] threads = new Thread[5];
    for (int t = 0; t < threads.length; t++) {
      final long seed = 8 + t;
      Runnable body = () -> compareOnThisThread(seed, failures, compared);
      threads[t] = t == 0 ? Thread.ofPlatform().start(body) : Thread.ofVirtual().start(body);
    }
    for (Thread t : threads) assertTrue(t.join(Duration.ofSeconds(120)), "thread did not finish");
    System.out.println(
        "AttributeNativeEquivalenceTest: "
            + compared.get()
            + " sets compared, record "
            + AgentNatives.recordSize()
            + " bytes");
    assertEquals(List.of(), failures.subList(0, Math.min(3, failures.size())));
    assertEquals(threads.length * (long) STEPS, compared.get());
  }

  private static void compareOnThisThread(long seed, List<String> failures, AtomicLong compared) {
    SplittableRandom rnd = new SplittableRandom(seed);
    ByteBuffer record = AgentNatives.currentRecordBuffer();
    int size = record.capacity();
    byte[] before = new byte[size];
    byte[] byNative = new byte[size];
    byte[] byJava = new byte[size];
    for (int step = 0; step < STEPS; step++) {
      perturb(rnd, record);
      int key = rnd.nextInt(40) == 0 ? 200 + rnd.nextInt(40) : keys[rnd.nextInt(KEYS)];
      String value = rnd.nextInt(7) == 0 ? null : value(rnd);
      record.get(0, before);
      int nativeStored = AgentNatives.setAttribute(key, value);
      record.get(0, byNative);
      record.put(0, before);
      int javaStored = ThreadAttributes.set(key, value);
      record.get(0, byJava);
      compared.incrementAndGet();
      if (nativeStored != javaStored || !java.util.Arrays.equals(byNative, byJava)) {
        failures.add(
            String.format(
                "set(%d, %s) from %s: native %d %s, java %d %s",
                key,
                value == null ? "null" : '"' + value + '"',
                HEX.formatHex(before),
                nativeStored,
                HEX.formatHex(byNative),
                javaStored,
                HEX.formatHex(byJava)));
        return;
      }
      if (rnd.nextInt(50) == 0) Thread.yield(); // a virtual thread may come back elsewhere
    }
  }

  private static String value(SplittableRandom rnd) {
    int pieces =
        switch (rnd.nextInt(4)) {
          case 0 -> 0;
          case 1 -> rnd.nextInt(1, 8);
          case 2 -> rnd.nextInt(8, 40);
          default -> rnd.nextInt(40, 300); // beyond 255 bytes and any record's room
        };
    return Utf8Test.random(rnd, pieces);
  }

  /** Sometimes changes the record's state: validity, ids, or garbage in attrs-data. */
  private static void perturb(SplittableRandom rnd, ByteBuffer record) {
    switch (rnd.nextInt(60)) {
      case 0 -> ThreadContext.set(rnd.nextLong() | 1, rnd.nextLong(), rnd.nextLong() | 1, 1);
      case 1 -> ThreadContext.clear();
      case 2 -> record.put(24, (byte) 2); // a valid byte no writer produces
      case 3 -> { // garbage entries and size (readers stop at the truncated one)
        for (int i = 28; i < record.capacity(); i++) record.put(i, (byte) rnd.nextInt(256));
        record.put(26, (byte) rnd.nextInt(256)).put(27, (byte) rnd.nextInt(3));
      }
      default -> {}
    }
  }
}
