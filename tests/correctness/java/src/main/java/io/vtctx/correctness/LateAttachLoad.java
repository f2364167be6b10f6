package io.vtctx.correctness;

import io.vtctx.ThreadContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Late attach while every carrier is busy: the JVM starts WITHOUT the agent, "busy" virtual
 * threads occupy all carriers (run with -Djdk.virtualThreadScheduler.parallelism and maxPoolSize
 * equal), and keep publishing new contexts across the attach. Publishing must start at once: the
 * earliest publish that found the agent active is reported ({@code first_active_ns}, the same
 * clock as the driver's: CLOCK_MONOTONIC), and the driver bounds it against the moment its attach
 * returned. After GO each busy thread writes {@code after} markers, still keeping its carrier busy;
 * every one must be correct on both planes.
 *
 * <p>Shapes ({@code load=}):
 *
 * <ul>
 *   <li>{@code spin}: CPU-bound threads that never yield (one per carrier): no other virtual
 *       thread runs until they end.
 *   <li>{@code pinned}: many threads that park while pinned ({@code Object.wait} inside {@code
 *       synchronized}: on Java 21 the carrier stays pinned; Java 24+ unmounts, JEP 491) and then
 *       yield to the next, so the carriers are always either pinned or running a busy thread.
 * </ul>
 */
final class LateAttachLoad implements Scenario {
  private final String load;
  private final int busy;
  private final int after;
  private final CountDownLatch running;
  private volatile boolean go;
  private final AtomicLong firstActive = new AtomicLong(Long.MAX_VALUE);
  private final List<Thread> threads = new ArrayList<>();

  LateAttachLoad(Args a) {
    load = a.choice("load", "spin", List.of("spin", "pinned"));
    busy = a.integer("busy", load.equals("spin") ? 2 : 400);
    after = a.integer("after", 50);
    running = new CountDownLatch(busy);
  }

  @Override
  public int senders() {
    return busy;
  }

  @Override
  public int markers() {
    return busy * after;
  }

  @Override
  public boolean agentAtStart() {
    return false;
  }

  @Override
  public void prepare(RunContext run, Deadline deadline) throws Exception {
    for (int s = 0; s < busy; s++) {
      final int sender = s;
      String via = s % 2 == 0 ? "api" : "otel";
      run.manifest().sender(s, "virtual", via);
      Runnable body = run.guarded(() -> busySender(run, sender, run.publisher(via)));
      threads.add(Thread.ofVirtual().name("busy-" + s).start(body));
    }
    deadline.await(running, "the busy threads to start");
  }

  private void busySender(RunContext run, int s, Publisher p) throws Exception {
    Object lock = new Object();
    p.begin(s);
    running.countDown();
    // Until GO: publish a new context on every turn (the sequence numbers above the markers').
    for (int turn = 0; !go; turn = (turn + 1) & 0xfffff) {
      boolean active = ThreadContext.isAgentActive(); // before the publish: it then publishes
      p.open(s, after + turn);
      if (active) firstActive.accumulateAndGet(System.nanoTime(), Math::min);
      keepCarrierBusy(lock);
      p.close();
    }
    int first = s * after;
    for (int i = 0; i < after; i++) {
      p.open(s, i);
      if (i == 0) run.manifest().record(s, ThreadContext.recordAddress()); // 0: none, graded
      run.sink().announce(first + i, MarkerSink.SET);
      keepCarrierBusy(lock);
      run.manifest().marker(first + i, s, i, p.current(), Manifest.PHASE_AFTER);
      run.sink().marker(first + i);
      p.close();
      run.sink().announce(first + i, MarkerSink.CLEAR);
    }
    p.end(false);
    run.manifest().recordAtEnd(s, ThreadContext.recordAddress());
  }

  private void keepCarrierBusy(Object lock) throws InterruptedException {
    if (load.equals("spin")) {
      for (int i = 0; i < 1000; i++) Thread.onSpinWait();
    } else {
      synchronized (lock) {
        lock.wait(1); // pinned on Java 21: the carrier waits with it
      }
      Thread.yield(); // the next busy thread's turn (they hold the carriers in turn)
    }
  }

  @Override
  public void run(RunContext run, Deadline deadline) throws Exception {
    go = true;
    for (Thread t : threads) deadline.join(t);
  }

  /** first_active_ns: System.nanoTime() of the earliest publish that found the agent, or -1. */
  @Override
  public void describe(Map<String, Object> header) {
    long t = firstActive.get();
    header.put("first_active_ns", t == Long.MAX_VALUE ? -1 : t);
  }
}
