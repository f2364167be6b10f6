package io.vtctx.correctness;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.concurrent.locks.LockSupport;

/** One deadline for a whole run: every wait of the main thread is bounded by it. */
final class Deadline {
  private final long end;

  Deadline(Duration budget) {
    end = System.nanoTime() + budget.toNanos();
  }

  private long leftNanos(String what) throws TimeoutException {
    long left = end - System.nanoTime();
    if (left <= 0) throw new TimeoutException("deadline passed waiting for " + what);
    return left;
  }

  void join(Thread t) throws InterruptedException, TimeoutException {
    if (!t.join(Duration.ofNanos(leftNanos(t.getName())))) {
      throw new TimeoutException("deadline passed waiting for " + t.getName() + " to end");
    }
  }

  void await(CountDownLatch latch, String what) throws InterruptedException, TimeoutException {
    if (!latch.await(leftNanos(what), TimeUnit.NANOSECONDS)) {
      throw new TimeoutException("deadline passed waiting for " + what);
    }
  }

  /** Waits for a condition that no one signals (e.g. the shim noticing a late agent). */
  void poll(BooleanSupplier condition, String what) throws TimeoutException {
    while (!condition.getAsBoolean()) {
      leftNanos(what);
      LockSupport.parkNanos(1_000_000);
    }
  }
}
