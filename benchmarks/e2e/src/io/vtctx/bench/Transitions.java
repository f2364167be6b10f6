package io.vtctx.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

/**
 * End-to-end virtual-thread workloads for agent overhead, meant to run on ONE carrier
 * (-Djdk.virtualThreadScheduler.parallelism=1) for stable numbers.
 *
 * <p>Usage: Transitions yield|churn|pingpong|publish_churn <ops> <warmup iterations> <measured
 * iterations>
 *
 * <ul>
 *   <li>yield: one virtual thread calls Thread.yield() ops times (one unmount + mount each).
 *   <li>churn: start ops virtual threads with an empty body, then join them all.
 *   <li>pingpong: two virtual threads hand a token to each other ops times (LockSupport park and
 *       unpark; on one carrier every hand-off is one unmount + one mount).
 *   <li>publish_churn: churn, but each thread publishes one context through the shim
 *       (io.vtctx.ThreadContext, {@link PublishingChurn}) before it ends: its record, its index
 *       entry and their return.
 * </ul>
 *
 * <p>With {@code -Dbench.attachAgent=<path>=<options>} the JVM starts without an agent and loads
 * that one into itself after the warm-up iterations (the Attach API, as `vtctx-reader attach` and
 * `--attach` load it; needs {@code -Djdk.attach.allowAttachSelf=true}): the measured iterations
 * show what an attach leaves behind.
 *
 * <p>Prints one line: {@code result workload=... ops=... median_ms=... cpu_median_ms=...
 * iterations_ms=[...]}. cpu_median_ms is the process CPU time per iteration, summed over every
 * thread's /proc/self/task/TID/schedstat (nanoseconds; getProcessCpuTime() only has clock-tick
 * resolution here): far less sensitive than wall time to other load on a small shared machine.
 */
public final class Transitions {
  public static void main(String[] args) throws Exception {
    String workload = args[0];
    int ops = Integer.parseInt(args[1]);
    int warmup = Integer.parseInt(args[2]);
    int measured = Integer.parseInt(args[3]);
    double[] ms = new double[measured];
    double[] cpuMs = new double[measured];
    for (int i = 0; i < warmup + measured; i++) {
      long c0 = processCpuNanos();
      long t0 = System.nanoTime();
      switch (workload) {
        case "yield" -> yieldMany(ops);
        case "churn" -> churn(ops);
        case "pingpong" -> pingPong(ops);
        case "publish_churn" -> PublishingChurn.run(ops);
        default -> throw new IllegalArgumentException("unknown workload " + workload);
      }
      long t1 = System.nanoTime();
      long c1 = processCpuNanos();
      if (i == warmup - 1) attachAgentIfAsked();
      if (i >= warmup) {
        ms[i - warmup] = (t1 - t0) / 1e6;
        cpuMs[i - warmup] = (c1 - c0) / 1e6;
      }
    }
    System.out.printf(
        "result workload=%s ops=%d median_ms=%.3f cpu_median_ms=%.3f iterations_ms=%s%n",
        workload, ops, median(ms), median(cpuMs), Arrays.toString(ms));
  }

  static void attachAgentIfAsked() throws Exception {
    String agent = System.getProperty("bench.attachAgent");
    if (agent == null) return;
    int options = agent.indexOf('=');
    String self = Long.toString(ProcessHandle.current().pid());
    var vm = com.sun.tools.attach.VirtualMachine.attach(self);
    try {
      vm.loadAgentPath(
          options < 0 ? agent : agent.substring(0, options),
          options < 0 ? null : agent.substring(options + 1));
    } finally {
      vm.detach();
    }
  }

  /** CPU time of every live thread of this process, in ns (first field of schedstat). */
  static long processCpuNanos() throws IOException {
    long total = 0;
    try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
      for (Path task : (Iterable<Path>) tasks::iterator) {
        try {
          String line = Files.readString(task.resolve("schedstat"));
          total += Long.parseLong(line.substring(0, line.indexOf(' ')));
        } catch (IOException e) {
          // The thread ended between the listing and the read: its time is gone either way.
        }
      }
    }
    return total;
  }

  static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }

  static void yieldMany(int ops) throws InterruptedException {
    Thread t = Thread.ofVirtual().start(() -> {
      for (int i = 0; i < ops; i++) Thread.yield();
    });
    t.join();
  }

  /** The thread whose turn it is; each hand-off sets it to the other one and unparks it. */
  private static volatile Thread turn;

  static void pingPong(int handOffs) throws InterruptedException {
    Thread[] players = new Thread[2];
    for (int p = 0; p < 2; p++) {
      int me = p;
      players[p] =
          Thread.ofVirtual()
              .unstarted(
                  () -> {
                    Thread other = players[1 - me];
                    // Player 0 makes hand-offs 0, 2, 4, ...; player 1 makes 1, 3, 5, ...
                    for (int i = me; i < handOffs; i += 2) {
                      while (turn != Thread.currentThread()) LockSupport.park();
                      turn = other;
                      LockSupport.unpark(other);
                    }
                  });
    }
    turn = players[0];
    players[1].start();
    players[0].start();
    players[0].join();
    players[1].join();
  }

  static void churn(int ops) throws InterruptedException {
    Thread[] threads = new Thread[ops];
    Runnable empty = () -> {};
    for (int i = 0; i < ops; i++) threads[i] = Thread.ofVirtual().start(empty);
    for (Thread t : threads) t.join();
  }
}
