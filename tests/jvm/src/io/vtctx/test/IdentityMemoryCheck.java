package io.vtctx.test;

import io.vtctx.internal.TestNatives;
import java.nio.ByteBuffer;
import java.util.concurrent.CountDownLatch;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * channel=identity: the agent's memory follows the live publishing threads, not every thread that
 * ever published. Usage: IdentityMemoryCheck <parked> <short-lived> <wave>
 *
 * <ol>
 *   <li><b>Parked:</b> {@code parked} virtual threads publish (take their record through the
 *       natives, as the shim's first publish does, and write into it) and park. Prints the agent's
 *       memory per live publishing thread: the growth of the pool's resident bytes and of the
 *       thread index's mapped bytes, divided by the threads.
 *   <li><b>Short-lived:</b> then all end, and {@code short-lived} more virtual threads publish and
 *       end, {@code wave} alive at a time. With no VirtualThreadEnd (no JVMTI), a record comes back
 *       once its view is collected: memory may lag behind the ends by a collection, never grow
 *       with the threads that have ended. Checks: the index's capacity in the second half of the
 *       run is at most its peak in the first half (plus one doubling), and so are the live
 *       records.
 *   <li><b>After:</b> with every thread ended and the views collected, the index shrinks to its
 *       minimum table and the live records fall to the platform threads' (deadline 60 s).
 * </ol>
 * Prints one line per phase and PASS or FAIL.
 */
public final class IdentityMemoryCheck {
  static final long MIN_INDEX_CAPACITY = 1024;  // VTCTX_INDEX_MIN_CAPACITY
  static final long FEW_RECORDS = 4096;  // platform threads' records and the carriers' caches

  public static void main(String[] args) throws Exception {
    int parked = Integer.parseInt(args[0]);
    int shortLived = Integer.parseInt(args[1]);
    int wave = Integer.parseInt(args[2]);
    if (!TestNatives.isActive()) {
      System.out.println("FAIL: agent not active");
      System.exit(1);
    }
    int failures = 0;
    long start = System.nanoTime();

    // 1. Memory per live publishing thread.
    String before = TestNatives.statsJson();
    CountDownLatch published = new CountDownLatch(parked);
    CountDownLatch release = new CountDownLatch(1);
    Thread[] threads = new Thread[parked];
    int[] without = new int[1];
    for (int i = 0; i < parked; i++) {
      threads[i] = Thread.ofVirtual().start(() -> {
        if (!publish()) {
          synchronized (without) {
            without[0]++;
          }
        }
        published.countDown();
        await(release);
      });
    }
    published.await();
    String during = TestNatives.statsJson();
    long recordBytes = field(during, "pool_resident_bytes") - field(before, "pool_resident_bytes");
    long indexBytes = field(during, "index_bytes") - field(before, "index_bytes");
    long indexed = field(during, "index_live") - field(before, "index_live");
    System.out.printf("parked threads=%d without_record=%d index_live=%d index_capacity=%d"
            + " record_bytes_per_thread=%.1f index_bytes_per_thread=%.1f elapsed_ms=%d%n",
        parked, without[0], indexed, field(during, "index_capacity"),
        (double) recordBytes / parked, (double) indexBytes / parked,
        (System.nanoTime() - start) / 1_000_000);
    if (without[0] != 0 || indexed < parked) {
      System.out.printf("FAIL: %d threads published without a record, %d of %d indexed%n",
          without[0], indexed, parked);
      failures++;
    }
    release.countDown();
    for (Thread t : threads) t.join();
    threads = null;

    // 2. Short-lived publishing threads, `wave` at a time.
    int waves = shortLived / wave;
    long firstHalfCapacity = 0, firstHalfLive = 0, secondHalfCapacity = 0, secondHalfLive = 0;
    for (int w = 0; w < waves; w++) {
      Thread[] batch = new Thread[wave];
      for (int i = 0; i < wave; i++) {
        batch[i] = Thread.ofVirtual().start(IdentityMemoryCheck::publish);
      }
      for (Thread t : batch) t.join();
      String now = TestNatives.statsJson();
      long capacity = field(now, "index_capacity");
      long live = field(now, "records_live");
      if (w < waves / 2) {
        firstHalfCapacity = Math.max(firstHalfCapacity, capacity);
        firstHalfLive = Math.max(firstHalfLive, live);
      } else {
        secondHalfCapacity = Math.max(secondHalfCapacity, capacity);
        secondHalfLive = Math.max(secondHalfLive, live);
      }
    }
    String churned = TestNatives.statsJson();
    System.out.printf("short-lived threads=%d wave=%d index_capacity_peak=%d/%d (halves)"
            + " records_live_peak=%d/%d index_rebuilds=%d records_returned=%d elapsed_ms=%d%n",
        waves * wave, wave, firstHalfCapacity, secondHalfCapacity, firstHalfLive, secondHalfLive,
        field(churned, "index_rebuilds"), field(churned, "records_returned"),
        (System.nanoTime() - start) / 1_000_000);
    if (secondHalfCapacity > 2 * Math.max(firstHalfCapacity, parked)
        || secondHalfLive > 2 * Math.max(firstHalfLive, parked)) {
      System.out.println("FAIL: memory grows with the threads that have ended");
      failures++;
    }

    // 3. All ended: the views are collected, their records come back, the index shrinks.
    long deadline = System.nanoTime() + 60_000_000_000L;
    String after;
    while (true) {
      System.gc();  // the views are garbage; the agent sweeps after a collection
      after = TestNatives.statsJson();
      boolean low = field(after, "records_live") <= FEW_RECORDS
          && field(after, "index_capacity") <= MIN_INDEX_CAPACITY;
      if (low || System.nanoTime() > deadline) break;
      Thread.sleep(100);
    }
    System.out.printf("ended records_live=%d index_live=%d index_capacity=%d index_bytes=%d"
            + " elapsed_ms=%d%n",
        field(after, "records_live"), field(after, "index_live"), field(after, "index_capacity"),
        field(after, "index_bytes"), (System.nanoTime() - start) / 1_000_000);
    if (field(after, "records_live") > FEW_RECORDS
        || field(after, "index_capacity") > MIN_INDEX_CAPACITY) {
      System.out.println("FAIL: records or index entries stay after every thread ended (60 s)");
      failures++;
    }
    System.out.println(failures == 0 ? "PASS" : "FAIL");
    System.exit(failures == 0 ? 0 : 1);
  }

  // The shim keeps a thread's record view in a ThreadLocal (ThreadLocalRecordStorage): the view,
  // hence the record, lives as long as the Thread.
  static final ThreadLocal<ByteBuffer> VIEW = new ThreadLocal<>();

  /** The calling thread's first publish: its record, kept and written as the shim does. */
  static boolean publish() {
    ByteBuffer record = TestNatives.currentRecordBuffer();
    if (record == null) return false;
    VIEW.set(record);
    record.put(25, (byte) 1);
    return true;
  }

  static void await(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  static long field(String json, String key) {
    Matcher m = Pattern.compile("\"" + key + "\": (\\d+)").matcher(json);
    return m.find() ? Long.parseLong(m.group(1)) : -1;
  }
}
