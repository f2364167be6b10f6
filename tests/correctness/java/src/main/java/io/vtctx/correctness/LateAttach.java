package io.vtctx.correctness;

import io.vtctx.ThreadContext;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * The JVM starts WITHOUT the agent; the driver attaches it after READY, then starts the reader.
 *
 * <p>Before READY, "pre" threads start and make a context current while no agent exists (the shim
 * publishes nothing): virtual threads that then park, one virtual thread that keeps running
 * (spinning on its carrier, so it is mounted across the attach), and platform threads.
 *
 * <p>After GO (agent loaded, reader attached):
 *
 * <ol>
 *   <li>phase "before": each pre thread writes {@code before} markers under the context it made
 *       current before the attach, without touching the shim. Nothing ever wrote that context into
 *       a record, so the only honest answers are unmapped (no record yet) or invalid (a record with
 *       valid=0); a context of anyone else would be a misattribution.
 *   <li>the main thread checks that the shim knows of the agent ({@code isAgentActive()}: the
 *       agent told it at attach).
 *   <li>phase "after": the pre threads close the old scope and write {@code after} markers under
 *       new contexts, and {@code fresh} new virtual threads run the normal sender loop. All of
 *       these must be correct on both planes.
 * </ol>
 *
 * Markers: pre sender s owns {@code before + after} consecutive ids; new senders {@code after}.
 */
final class LateAttach implements Scenario {
  private final int parked;
  private final int platform;
  private final int fresh;
  private final int before;
  private final int after;
  private final TransitionPlan plan = TransitionPlan.mix(7);

  private final List<Thread> preThreads = new ArrayList<>();
  private final CountDownLatch prepared;
  private final CountDownLatch phaseBefore = new CountDownLatch(1);
  private final CountDownLatch beforeDone;
  private final CountDownLatch phaseAfter = new CountDownLatch(1);
  private volatile boolean spinning = true;

  LateAttach(Args a) {
    parked = a.integer("parked", 32);
    platform = a.integer("platform", 4);
    fresh = a.integer("fresh", 64);
    before = a.integer("before", 2);
    after = a.integer("after", 8);
    prepared = new CountDownLatch(preCount());
    beforeDone = new CountDownLatch(preCount());
  }

  /** Parked virtual, one running virtual, platform. */
  private int preCount() {
    return parked + 1 + platform;
  }

  @Override
  public int senders() {
    return preCount() + fresh;
  }

  @Override
  public int markers() {
    return preCount() * (before + after) + fresh * after;
  }

  @Override
  public boolean agentAtStart() {
    return false;
  }

  @Override
  public void prepare(RunContext run, Deadline deadline) throws Exception {
    for (int s = 0; s < preCount(); s++) {
      final int sender = s;
      String kind = s <= parked ? "virtual" : "platform";
      String via = s % 2 == 0 ? "api" : "otel";
      run.manifest().sender(s, kind, via);
      boolean runs = s == parked; // the one that stays mounted across the attach
      Runnable body = run.guarded(() -> preSender(run, sender, via, runs));
      Thread.Builder builder = kind.equals("virtual") ? Thread.ofVirtual() : Thread.ofPlatform();
      preThreads.add(builder.name("pre-" + s).start(body));
    }
    deadline.await(prepared, "pre-attach threads to make their contexts current");
    if (!run.failures().isEmpty()) throw new IllegalStateException("pre-attach thread failed");
  }

  private void preSender(RunContext run, int s, String via, boolean runs) throws Exception {
    Publisher p = run.publisher(via);
    p.begin(s);
    p.open(s, 0); // agent absent: nothing is published
    int first = s * (before + after);
    prepared.countDown();
    if (runs) {
      while (spinning) Thread.onSpinWait(); // mounted, on its carrier, across the attach
    } else {
      phaseBefore.await();
    }
    for (int i = 0; i < before; i++) {
      if (i > 0) Transition.YIELD.run(s);
      run.manifest().marker(first + i, s, 0, p.current(), Manifest.PHASE_BEFORE);
      run.sink().marker(first + i);
    }
    beforeDone.countDown();
    phaseAfter.await();
    p.close();
    run.sink().announce(first + before - 1, MarkerSink.CLEAR);
    new Sender(run, s, first + before, after, p).markers(1, plan, false);
    p.end(false);
    run.manifest().recordAtEnd(s, ThreadContext.recordAddress());
  }

  @Override
  public void run(RunContext run, Deadline deadline) throws Exception {
    spinning = false;
    phaseBefore.countDown();
    deadline.await(beforeDone, "the markers of phase 'before'");
    if (!ThreadContext.isAgentActive()) throw new IllegalStateException("shim not told at attach");
    phaseAfter.countDown();
    List<Thread> freshThreads = new ArrayList<>();
    int firstFresh = preCount() * (before + after);
    for (int i = 0; i < fresh; i++) {
      int s = preCount() + i;
      int first = firstFresh + i * after;
      String via = i % 2 == 0 ? "api" : "otel";
      run.manifest().sender(s, "virtual", via);
      Runnable body =
          run.guarded(() -> new Sender(run, s, first, after, run.publisher(via)).run(plan, false));
      freshThreads.add(Thread.ofVirtual().name("fresh-" + s).start(body));
    }
    for (Thread t : preThreads) deadline.join(t);
    for (Thread t : freshThreads) deadline.join(t);
  }
}
