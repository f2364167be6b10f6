package io.vtctx.bench;

import io.vtctx.internal.TestNatives;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.ObjectName;

/**
 * Native memory the agent spends per live virtual thread. Usage: ParkedThreads <threads>
 *
 * <p>Measures the agent's fixed footprint first (its library's resident pages, the pool's and the
 * thread-state arena's resident bytes, before any virtual thread), then starts N virtual threads
 * that each get their record (first mount), write to it, and park, and measures again. Prints one
 * {@code memory ...} line with bytes per live virtual thread. With
 * {@code -XX:NativeMemoryTracking=summary} it also prints a {@code jvm_memory ...} line: what the
 * JVM itself committed per thread meanwhile (NMT "Internal" holds the JvmtiThreadState a virtual
 * thread gets once an agent binds thread-local storage to it; "Thread" and the Java heap are not
 * the agent's).
 */
public final class ParkedThreads {
  public static void main(String[] args) throws Exception {
    int n = Integer.parseInt(args[0]);
    TestNatives.currentRecord();  // the main thread's record exists already (VMInit)
    long libRss = libraryRss();
    String before = TestNatives.statsJson();
    long internalBefore = nmtCommittedKb("Internal");
    long fixed = libRss + field(before, "pool_resident_bytes")
        + field(before, "thread_states_resident_bytes");

    CountDownLatch bound = new CountDownLatch(n);
    CountDownLatch release = new CountDownLatch(1);
    Thread[] threads = new Thread[n];
    for (int i = 0; i < n; i++) {
      threads[i] = Thread.ofVirtual().unstarted(() -> {
        // Running, so mounted: the record is bound. Write into it as the shim would, so its page
        // is really resident (untouched slab pages cost nothing and would flatter the result).
        TestNatives.currentRecordBuffer().put(25, (byte) 1);
        bound.countDown();
        try {
          release.await();  // parked: unmounted, record kept
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
    }
    for (Thread t : threads) t.start();
    bound.await();
    String during = TestNatives.statsJson();
    long live = field(during, "records_live");
    long poolResident = field(during, "pool_resident_bytes");
    long poolBefore = field(before, "pool_resident_bytes");
    long recordSize = field(during, "record_size");
    double perThread = (double) (poolResident - poolBefore) / n;
    System.out.printf(
        "memory threads=%d records_live=%d record_size=%d pool_resident_bytes=%d"
            + " bytes_per_thread=%.2f overhead_pct=%.2f pool_slabs=%d records_peak=%d"
            + " fixed_footprint_bytes=%d library_rss_bytes=%d%n",
        n, live, recordSize, poolResident, perThread, (perThread / recordSize - 1) * 100,
        field(during, "pool_slabs"), field(during, "records_peak"), fixed, libRss);
    long internalDuring = nmtCommittedKb("Internal");
    if (internalBefore >= 0 && internalDuring >= 0) {
      System.out.printf("jvm_memory threads=%d nmt_internal_committed_kb_before=%d"
              + " nmt_internal_committed_kb_during=%d nmt_internal_bytes_per_thread=%.1f%n",
          n, internalBefore, internalDuring, (internalDuring - internalBefore) * 1024.0 / n);
    }
    release.countDown();
    for (Thread t : threads) t.join();
  }

  /** Committed KB of one NMT category, or -1 when native memory tracking is off. */
  static long nmtCommittedKb(String category) throws Exception {
    String summary = (String) ManagementFactory.getPlatformMBeanServer().invoke(
        new ObjectName("com.sun.management:type=DiagnosticCommand"), "vmNativeMemory",
        new Object[] {new String[] {"summary"}}, new String[] {String[].class.getName()});
    Matcher m = Pattern.compile("-\\s+" + category + " \\(reserved=\\d+KB, committed=(\\d+)KB")
        .matcher(summary);
    return m.find() ? Long.parseLong(m.group(1)) : -1;
  }

  /** Resident bytes of libvtctx.so's mappings (/proc/self/smaps). */
  static long libraryRss() throws Exception {
    long rss = 0;
    boolean inLib = false;
    for (String line : Files.readAllLines(Path.of("/proc/self/smaps"))) {
      if (line.matches("^[0-9a-f]+-[0-9a-f]+ .*")) {
        inLib = line.endsWith("libvtctx.so");
      } else if (inLib && line.startsWith("Rss:")) {
        rss += Long.parseLong(line.replaceAll("\\D", "")) * 1024;
      }
    }
    return rss;
  }

  static long field(String json, String key) {
    Matcher m = Pattern.compile("\"" + key + "\": (\\d+)").matcher(json);
    return m.find() ? Long.parseLong(m.group(1)) : -1;
  }
}
