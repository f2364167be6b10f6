package io.vtctx.test;

import io.vtctx.internal.TestNatives;
import java.util.concurrent.CountDownLatch;

/**
 * Calls System.exit while virtual threads are mounted and running, others parked, and a shutdown
 * hook keeps creating and yielding virtual threads during VM death. The JVM must exit with the
 * requested status, without a crash, and the stats file must be written.
 */
public final class ShutdownWhileMounted {
  public static void main(String[] args) throws Exception {
    int carriers = Runtime.getRuntime().availableProcessors();  // default scheduler parallelism
    int spinners = carriers * 4;
    // Wait for one running spinner per carrier, not for all of them: a spinning virtual thread
    // that yields may be rescheduled ahead of spinners not yet started, so on few CPUs the later
    // ones may never mount (this waited forever on a 2-CPU machine).
    CountDownLatch running = new CountDownLatch(carriers);
    for (int i = 0; i < spinners; i++) {
      Thread.ofVirtual().start(() -> {
        TestNatives.currentRecord();
        running.countDown();
        while (true) {
          TransitionWorkload.burn(10_000);
          Thread.yield();
        }
      });
    }
    for (int i = 0; i < 1000; i++) {
      Thread.ofVirtual().start(() -> {
        try {
          Thread.sleep(Long.MAX_VALUE);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
    }
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      for (int i = 0; i < 2000; i++) {
        Thread.ofVirtual().start(() -> {
          for (int k = 0; k < 10; k++) Thread.yield();
        });
      }
    }));
    running.await();
    System.exit(42);
  }
}
