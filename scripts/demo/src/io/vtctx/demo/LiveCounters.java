package io.vtctx.demo;

import io.vtctx.internal.AgentNatives;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A bundled virtual-thread workload: request-like virtual threads that yield, sleep, park, hand
 * work over queues and burn CPU, while the main thread prints the agent's live counters every
 * second. Usage: LiveCounters [seconds]
 */
public final class LiveCounters {
  public static void main(String[] args) throws Exception {
    int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 8;
    boolean agent;
    try {
      agent = AgentNatives.isActive();
    } catch (UnsatisfiedLinkError e) {
      agent = false;
    }
    if (!agent) {
      System.out.println("vtctx agent not loaded: run with -agentpath:build/agent/libvtctx.so");
      System.exit(1);
    }
    AtomicBoolean running = new AtomicBoolean(true);
    LongAdder requests = new LongAdder();
    List<Thread> workers = new ArrayList<>();
    // Long-lived "connections": each runs requests back to back in fresh virtual threads.
    for (int c = 0; c < 64; c++) {
      BlockingQueue<Integer> queue = new ArrayBlockingQueue<>(1);
      workers.add(Thread.ofVirtual().name("conn-" + c).start(() -> {
        while (running.get()) {
          Thread request = Thread.ofVirtual().start(() -> handle(queue));
          try {
            queue.put(1);  // hand the request its input
            request.join();
          } catch (InterruptedException e) {
            return;
          }
          requests.increment();
        }
      }));
    }
    System.out.printf("%4s %10s %10s %10s %12s %12s %10s%n", "sec", "requests", "mounts/s",
        "records", "created", "recycled", "pool KiB");
    long lastMounts = 0;
    for (int s = 1; s <= seconds; s++) {
      Thread.sleep(1000);
      String stats = AgentNatives.statsJson();
      long mounts = field(stats, "mounts");
      System.out.printf("%4d %10d %10d %10d %12d %12d %10d%n", s, requests.sum(), mounts - lastMounts,
          field(stats, "records_live"), field(stats, "records_created"),
          field(stats, "records_returned"), field(stats, "pool_bytes") / 1024);
      lastMounts = mounts;
    }
    running.set(false);
    for (Thread t : workers) t.join();
    System.out.println("\nfinal agent counters:\n" + AgentNatives.statsJson());
  }

  static void handle(BlockingQueue<Integer> queue) {
    try {
      queue.take();
    } catch (InterruptedException e) {
      return;
    }
    for (int i = 0; i < 3; i++) {
      Thread.yield();
      LockSupport.parkNanos(20_000);
      double x = 0;
      for (int k = 0; k < 5_000; k++) x += Math.sqrt(k);
      if (x < 0) System.out.println(x);
    }
  }

  static long field(String json, String key) {
    Matcher m = Pattern.compile("\"" + key + "\": (\\d+)").matcher(json);
    return m.find() ? Long.parseLong(m.group(1)) : -1;
  }
}
