package io.vtctx.test;

import io.vtctx.internal.TestNatives;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The record pool's memory follows its use. Usage: PoolMemoryCheck <threads> clean|written
 *
 * <p>N virtual threads get their record (first mount) and park; with {@code written} each first
 * writes into its record as the shim would, with {@code clean} none does. Then all end. Checks:
 * <ul>
 *   <li>clean, while parked: the records cost no memory (taken records are read, never written);
 *   <li>after the end, both modes: the pool's resident memory comes back to at most 4 MiB (from
 *       12.8 MB for 200k written records; clean records are not dirtied by their return, written
 *       ones are given back by the trimmer), waited for with a 60 s deadline.
 * </ul>
 * Resident memory is measured twice: independently, as the Rss of the record mapping in
 * /proc/self/smaps (the mapping holding the main thread's record), and as the agent's own
 * pool_resident_bytes (records and their links). Prints one line per phase and PASS or FAIL.
 */
public final class PoolMemoryCheck {
  // What may stay: free records under the trim threshold (RecordPool::kTrimMinIdleBytes, 2 MiB:
  // those freed after the last trim), plus up to 2 MiB for the pages that live records, platform
  // threads' records and the carriers' caches keep, and the link pages (2.0-2.7 MB measured).
  static final long NEAR_ZERO = 4 << 20;

  public static void main(String[] args) throws Exception {
    int n = Integer.parseInt(args[0]);
    boolean write = args[1].equals("written");
    if (!TestNatives.isActive()) {
      System.out.println("FAIL: agent not active");
      System.exit(1);
    }
    long anchor = TestNatives.currentRecord();  // a record of the pool, for its smaps entry
    CountDownLatch bound = new CountDownLatch(n);
    CountDownLatch release = new CountDownLatch(1);
    Thread[] threads = new Thread[n];
    for (int i = 0; i < n; i++) {
      threads[i] = Thread.ofVirtual().unstarted(() -> {
        if (write) TestNatives.currentRecordBuffer().put(25, (byte) 1);
        bound.countDown();
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
    }
    for (Thread t : threads) t.start();
    bound.await();
    String during = TestNatives.statsJson();
    long mappingDuring = mappingRss(anchor);
    System.out.printf("parked threads=%d mode=%s records_live=%d mapping_rss_bytes=%d"
            + " pool_resident_bytes=%d%n",
        n, args[1], field(during, "records_live"), mappingDuring,
        field(during, "pool_resident_bytes"));
    release.countDown();
    for (Thread t : threads) t.join();

    // The trimmer runs about a second after the ends; give it a generous deadline.
    long deadline = System.nanoTime() + 60_000_000_000L;
    long start = System.nanoTime();
    String after;
    long mappingAfter;
    while (true) {
      after = TestNatives.statsJson();
      mappingAfter = mappingRss(anchor);
      boolean low = mappingAfter <= NEAR_ZERO && field(after, "pool_resident_bytes") <= NEAR_ZERO;
      if (low || System.nanoTime() > deadline) break;
      Thread.sleep(100);
    }
    System.out.printf("ended threads=%d mode=%s records_live=%d records_peak=%d"
            + " mapping_rss_bytes=%d pool_resident_bytes=%d pool_trimmed_bytes=%d waited_ms=%d%n",
        n, args[1], field(after, "records_live"), field(after, "records_peak"), mappingAfter,
        field(after, "pool_resident_bytes"), field(after, "pool_trimmed_bytes"),
        (System.nanoTime() - start) / 1_000_000);

    int failures = 0;
    if (!write && mappingDuring > NEAR_ZERO) {
      System.out.printf("FAIL: %d records nobody wrote keep %d bytes resident%n", n,
          mappingDuring);
      failures++;
    }
    if (mappingAfter > NEAR_ZERO || field(after, "pool_resident_bytes") > NEAR_ZERO) {
      System.out.printf("FAIL: %d threads ended, the pool still holds %d bytes (mapping Rss) /"
              + " %d bytes (pool_resident_bytes) after 60 s%n",
          n, mappingAfter, field(after, "pool_resident_bytes"));
      failures++;
    }
    System.out.println(failures == 0 ? "PASS" : "FAIL");
    System.exit(failures == 0 ? 0 : 1);
  }

  /** Rss of the /proc/self/smaps entry whose range holds {@code address}, in bytes. */
  static long mappingRss(long address) throws Exception {
    List<String> lines = Files.readAllLines(Path.of("/proc/self/smaps"));
    Pattern range = Pattern.compile("^([0-9a-f]+)-([0-9a-f]+) .*");
    boolean in = false;
    for (String line : lines) {
      Matcher m = range.matcher(line);
      if (m.matches()) {
        long lo = Long.parseUnsignedLong(m.group(1), 16);
        long hi = Long.parseUnsignedLong(m.group(2), 16);
        in = Long.compareUnsigned(address, lo) >= 0 && Long.compareUnsigned(address, hi) < 0;
      } else if (in && line.startsWith("Rss:")) {
        return Long.parseLong(line.replaceAll("\\D", "")) * 1024;
      }
    }
    throw new IllegalStateException("no mapping holds record 0x" + Long.toHexString(address));
  }

  static long field(String json, String key) {
    Matcher m = Pattern.compile("\"" + key + "\": (\\d+)").matcher(json);
    return m.find() ? Long.parseLong(m.group(1)) : -1;
  }
}
