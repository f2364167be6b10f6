package io.vtctx.test;

import io.vtctx.internal.TestNatives;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The agent's core claim, checked from inside each thread: after every kind of transition
 * (start, yield, sleep, park, contended synchronized, Object.wait, blocking queue hand-off, CPU
 * burst) the CARRIER's otel_thread_ctx_v1 points at the running thread's own record, and the
 * context the thread wrote is still there. Every check is one JNI call, so it sees one carrier.
 */
final class TransitionWorkload {
  static final AtomicLong checks = new AtomicLong();
  static final AtomicLong mismatches = new AtomicLong();
  static final Set<String> carriers = ConcurrentHashMap.newKeySet();
  static final List<String> firstFailures = new ArrayList<>();

  private static final Object contended = new Object();
  private static final Object waitLock = new Object();

  private TransitionWorkload() {}

  /** Runs the full transition sequence on the calling thread; `id` makes its ids unique. */
  static void run(int id, BlockingQueue<Integer> inbox, BlockingQueue<Integer> outbox) {
    long record = TestNatives.currentRecord();
    if (record == 0) {
      fail(id, "start", "thread has no record");
      return;
    }
    long traceHi = 0x7654_0000_0000_0000L | id;
    long traceLo = 0x1000_0000_0000_0000L | ((long) id << 16);
    long span = ((long) id << 20) | 1;
    CarrierProbe.write(record, traceHi, traceLo, span, 1);
    verify(id, "start", record, traceHi, traceLo, span);
    for (int round = 0; round < 3; round++) {
      Thread.yield();
      verify(id, "yield", record, traceHi, traceLo, span);
      sleepMillis(1);
      verify(id, "sleep", record, traceHi, traceLo, span);
      LockSupport.parkNanos(50_000);
      verify(id, "park", record, traceHi, traceLo, span);
      synchronized (contended) {
        // Holding the monitor briefly makes the others block on it; with JEP 491 (JDK 24+) a
        // virtual thread blocked on a monitor unmounts.
        verify(id, "synchronized-enter", record, traceHi, traceLo, span);
        burn(2_000);
      }
      verify(id, "synchronized-exit", record, traceHi, traceLo, span);
      synchronized (waitLock) {
        try {
          waitLock.wait(0, 100_000);  // Object.wait unmounts a virtual thread on JDK 24+
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      verify(id, "wait", record, traceHi, traceLo, span);
      if (inbox != null) {
        try {
          outbox.put(id);
          inbox.take();  // a blocking hand-off with a partner thread
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        verify(id, "queue", record, traceHi, traceLo, span);
      }
      burn(20_000);
      verify(id, "cpu", record, traceHi, traceLo, span);
      span++;  // a new span: rewrite in place, same record
      CarrierProbe.write(record, traceHi, traceLo, span, 1);
      verify(id, "rewrite", record, traceHi, traceLo, span);
      if (TestNatives.currentRecord() != record) fail(id, "round", "record address changed");
    }
  }

  static void verify(int id, String step, long record, long hi, long lo, long span) {
    checks.incrementAndGet();
    int code = CarrierProbe.check(record, hi, lo, span);
    if (code != CarrierProbe.OK) fail(id, step, CarrierProbe.describe(code));
    String self = Thread.currentThread().toString();
    int at = self.indexOf('@');
    if (at >= 0) carriers.add(self.substring(at + 1));
  }

  static void fail(int id, String step, String what) {
    mismatches.incrementAndGet();
    synchronized (firstFailures) {
      if (firstFailures.size() < 20) {
        firstFailures.add(
            "thread " + id + " (" + Thread.currentThread() + ") after " + step + ": " + what);
      }
    }
  }

  static void sleepMillis(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  static double sink;

  static void burn(int iterations) {
    double x = 1;
    for (int i = 0; i < iterations; i++) x = Math.sqrt(x + i);
    sink += x;
  }

  /** Starts `n` virtual threads in hand-off pairs plus `platform` platform threads; joins all. */
  static void runMany(int n, int platform, int idBase) throws InterruptedException {
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < n; i += 2) {
      BlockingQueue<Integer> a = new ArrayBlockingQueue<>(1);
      BlockingQueue<Integer> b = new ArrayBlockingQueue<>(1);
      final int id = idBase + i;
      threads.add(Thread.ofVirtual().start(() -> run(id, a, b)));
      threads.add(Thread.ofVirtual().start(() -> run(id + 1, b, a)));
    }
    for (int i = 0; i < platform; i++) {
      final int id = idBase + n + i;
      threads.add(Thread.ofPlatform().start(() -> run(id, null, null)));
    }
    for (Thread t : threads) t.join();
  }

  /** Prints the summary and returns the process exit code (0 only with zero mismatches). */
  static int report(String name) {
    System.out.printf(
        "%s: checks=%d mismatches=%d carriers=%d%n",
        name, checks.get(), mismatches.get(), carriers.size());
    firstFailures.forEach(f -> System.out.println("  " + f));
    if (checks.get() == 0) {
      System.out.println(name + ": FAIL (no checks ran)");
      return 1;
    }
    return mismatches.get() == 0 ? 0 : 1;
  }
}
