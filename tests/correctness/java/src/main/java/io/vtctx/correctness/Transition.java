package io.vtctx.correctness;

import java.time.Duration;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * What a sender does between making a context current and writing the marker (and after it):
 * each kind lets a virtual thread unmount in a different way (or, for CPU and NONE, keeps it on
 * its carrier), so that the marker is written after a remount, often on another carrier.
 */
enum Transition {
  /** Nothing: the marker follows the publish on the same mount. */
  NONE,
  /** Thread.yield(): unmount and go to the back of the scheduler's queue. */
  YIELD,
  /** A short timed sleep (timer-based park). */
  SLEEP,
  /** LockSupport.parkNanos. */
  PARK,
  /** Contended synchronized: the holder parks inside, waiters block on entry (JEP 491 unmount). */
  MONITOR,
  /** Object.wait with a timeout (also an unmount on JDK 24+). */
  WAIT,
  /** A blocking hand-off through a SynchronousQueue with another sender. */
  HANDOFF,
  /** A CPU burst with no blocking at all. */
  CPU;

  private static final Object[] LOCKS = newLocks(8);
  private static final SynchronousQueue<Integer> HANDOFF_QUEUE = new SynchronousQueue<>();
  private static volatile long sink;

  void run(int sender) throws InterruptedException {
    switch (this) {
      case NONE -> {}
      case YIELD -> Thread.yield();
      case SLEEP -> Thread.sleep(Duration.ofNanos(100_000));
      case PARK -> LockSupport.parkNanos(50_000);
      case MONITOR -> {
        synchronized (LOCKS[sender % LOCKS.length]) {
          LockSupport.parkNanos(20_000);
        }
      }
      case WAIT -> {
        Object monitor = new Object();
        synchronized (monitor) {
          monitor.wait(1);
        }
      }
      case HANDOFF -> {
        // Whoever comes first parks until a partner arrives or the short timeout passes.
        if (!HANDOFF_QUEUE.offer(sender, 200, TimeUnit.MICROSECONDS)) {
          HANDOFF_QUEUE.poll(200, TimeUnit.MICROSECONDS);
        }
      }
      case CPU -> {
        long x = sender | 1;
        for (int i = 0; i < 20_000; i++) {
          x ^= x << 13;
          x ^= x >>> 7;
          x ^= x << 17;
        }
        sink = x;
      }
    }
  }

  private static Object[] newLocks(int n) {
    Object[] locks = new Object[n];
    for (int i = 0; i < n; i++) locks[i] = new Object();
    return locks;
  }
}
