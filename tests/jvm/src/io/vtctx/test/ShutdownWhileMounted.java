package io.vtctx.test;

import io.vtctx.internal.AgentNatives;
import java.util.concurrent.CountDownLatch;

/**
 * Calls System.exit while virtual threads are mounted and running, others parked, and a shutdown
 * hook keeps creating and yielding virtual threads during VM death. The JVM must exit with the
 * requested status, without a crash, and the stats file must be written.
 */
public final class ShutdownWhileMounted {
  public static void main(String[] args) throws Exception {
    int spinners = Runtime.getRuntime().availableProcessors() * 4;
    CountDownLatch running = new CountDownLatch(spinners);
    for (int i = 0; i < spinners; i++) {
      Thread.ofVirtual().start(() -> {
        AgentNatives.currentRecord();
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
