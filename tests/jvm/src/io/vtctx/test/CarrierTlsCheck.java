package io.vtctx.test;

import io.vtctx.internal.TestNatives;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Agent loaded at startup. Usage: CarrierTlsCheck <agent path> <virtual threads> <platform threads>
 *
 * Checks the transition invariants for thousands of virtual threads over all carriers with
 * platform threads mixed in, that concurrently live threads never share a record, and that the
 * agent's counters balance (every mount unmounted, every record bound at an event returned).
 */
public final class CarrierTlsCheck {
  public static void main(String[] args) throws Exception {
    String agent = args[0];
    int virtualThreads = Integer.parseInt(args[1]);
    int platformThreads = Integer.parseInt(args[2]);
    if (!CarrierProbe.init(agent) || !TestNatives.isActive()) {
      System.out.println("FAIL: agent not loaded/active");
      System.exit(1);
    }
    int failures = 0;

    // The main thread got its record at VMInit and publishes it on its own OS thread.
    long main = TestNatives.currentRecord();
    if (main == 0 || CarrierProbe.publishedRecord() != main) {
      System.out.println("FAIL: main thread does not publish its own record");
      failures++;
    }

    // Concurrently live threads: all distinct records.
    int n = Math.min(virtualThreads, 2000);
    Set<Long> records = ConcurrentHashMap.newKeySet();
    CountDownLatch bound = new CountDownLatch(n);
    CountDownLatch release = new CountDownLatch(1);
    Thread[] holders = new Thread[n];
    for (int i = 0; i < n; i++) {
      holders[i] = Thread.ofVirtual().start(() -> {
        records.add(TestNatives.currentRecord());
        bound.countDown();
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
    }
    bound.await();
    release.countDown();
    for (Thread t : holders) t.join();
    if (records.size() != n || records.contains(0L)) {
      System.out.printf(
          "FAIL: %d live virtual threads had %d distinct records%n", n, records.size());
      failures++;
    }

    TransitionWorkload.runMany(virtualThreads, platformThreads, 0);
    failures += TransitionWorkload.report("CarrierTlsCheck");

    // Every mount was followed by an unmount; no unpaired events in a clean startup run.
    String stats = TestNatives.statsJson();
    long mounts = field(stats, "mounts");
    long unmounts = field(stats, "unmounts");
    long unpaired = field(stats, "unpaired_mounts") + field(stats, "unpaired_unmounts")
        + field(stats, "ends_without_record");
    System.out.printf(
        "agent: mounts=%d unmounts=%d unpaired=%d records_live=%d pool_slabs=%d%n",
        mounts, unmounts, unpaired, field(stats, "records_live"), field(stats, "pool_slabs"));
    if (mounts == 0 || mounts != unmounts || unpaired != 0) {
      System.out.println("FAIL: agent counters do not balance\n" + stats);
      failures++;
    }
    if (TransitionWorkload.carriers.size() < 2) {
      System.out.println("FAIL: virtual threads ran on fewer than 2 carriers");
      failures++;
    }
    System.out.println(failures == 0 ? "PASS" : "FAIL");
    System.exit(failures == 0 ? 0 : 1);
  }

  static long field(String json, String key) {
    Matcher m = Pattern.compile("\"" + key + "\": (\\d+)").matcher(json);
    return m.find() ? Long.parseLong(m.group(1)) : -1;
  }
}
