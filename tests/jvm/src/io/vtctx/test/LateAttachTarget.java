package io.vtctx.test;

import io.vtctx.internal.TestNatives;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;

/**
 * A JVM the agent is attached to while it runs. Usage: LateAttachTarget <agent path> <go file>
 *
 * Before the attach it starts virtual threads that park (unmounted at attach time), one virtual
 * thread that keeps running (mounted at attach time: its first event is an unpaired Unmount) and
 * parked platform threads. It prints "READY <pid>", waits until the driver has attached the agent
 * and created the go file, then every pre-existing thread and 1000 new ones run the transition
 * checks. Exit code 0 only with zero mismatches.
 */
public final class LateAttachTarget {
  static volatile boolean released;

  public static void main(String[] args) throws Exception {
    String agent = args[0];
    Path go = Path.of(args[1]);
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> old = new ArrayList<>();
    for (int i = 0; i < 200; i += 2) {
      BlockingQueue<Integer> a = new ArrayBlockingQueue<>(1);
      BlockingQueue<Integer> b = new ArrayBlockingQueue<>(1);
      final int id = i;
      old.add(Thread.ofVirtual().start(() -> parkedThenRun(start, id, a, b)));
      old.add(Thread.ofVirtual().start(() -> parkedThenRun(start, id + 1, b, a)));
    }
    old.add(Thread.ofVirtual().start(() -> {
      while (!released) TransitionWorkload.burn(1_000);  // mounted across the attach
      TransitionWorkload.run(500, null, null);
    }));
    for (int i = 0; i < 3; i++) {
      final int id = 600 + i;
      old.add(Thread.ofPlatform().start(() -> parkedThenRun(start, id, null, null)));
    }
    System.out.println("READY " + ProcessHandle.current().pid());
    System.out.flush();

    // The driver attaches the agent, then creates the go file.
    long deadline = System.nanoTime() + 120_000_000_000L;
    while (!Files.exists(go)) {
      if (System.nanoTime() > deadline) {
        System.out.println("FAIL: no go file within 120 s");
        System.exit(2);
      }
      Thread.sleep(10);
    }
    if (!CarrierProbe.init(agent) || !TestNatives.isActive()) {
      System.out.println("FAIL: agent not loaded/active after the attach");
      System.exit(1);
    }
    released = true;
    start.countDown();
    TransitionWorkload.runMany(1000, 8, 10_000);  // threads created after the attach
    for (Thread t : old) t.join();
    int rc = TransitionWorkload.report("LateAttachTarget");
    System.out.println("agent stats: " + TestNatives.statsJson().replaceAll("\\s+", " "));
    System.out.println(rc == 0 ? "PASS" : "FAIL");
    System.exit(rc);
  }

  static void parkedThenRun(CountDownLatch start, int id, BlockingQueue<Integer> in,
      BlockingQueue<Integer> out) {
    try {
      start.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    TransitionWorkload.run(id, in, out);
  }
}
