package io.vtctx.correctness;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * Virtual and platform senders with a fixed number of markers each, under one lifetime pattern:
 *
 * <ul>
 *   <li>{@code concurrent}: every sender is started and runs up to a gate; once all have arrived
 *       there (each has been mounted, so each has its record), the gate opens: all of them are
 *       alive, with distinct records, before the first marker;
 *   <li>{@code sequential}: one sender at a time (each one reuses the carriers and, usually, the
 *       record of the one before);
 *   <li>{@code waves}: {@code wave} senders at a time (gated the same way), many waves (churn:
 *       short lives, records recycled from one wave to the next).
 * </ul>
 *
 * Senders {@code 0..virtual-1} are virtual threads, the next {@code platform} are platform threads.
 * Sender s writes markers {@code s*markers .. s*markers+markers-1}.
 */
final class Workload implements Scenario {
  private final int virtual;
  private final int platform;
  private final int markersEach;
  private final String lifetimes;
  private final int wave;
  private final boolean leaky;
  private final String publisher;
  private final TransitionPlan plan;

  Workload(Args a) {
    virtual = a.integer("virtual", 16);
    platform = a.integer("platform", 0);
    markersEach = a.integer("markers", 8);
    lifetimes = a.choice("lifetimes", "concurrent", List.of("concurrent", "sequential", "waves"));
    wave = a.integer("wave", 100);
    leaky = a.choice("scopes", "clean", List.of("clean", "leaky")).equals("leaky");
    publisher = a.choice("publisher", "api", List.of("api", "otel", "mixed"));
    String transitions = a.choice("transitions", "paper", List.of("paper", "mix"));
    long seed = a.integer("seed", 1);
    plan = transitions.equals("paper") ? TransitionPlan.paper() : TransitionPlan.mix(seed);
  }

  @Override
  public int senders() {
    return virtual + platform;
  }

  @Override
  public int markers() {
    return senders() * markersEach;
  }

  private String publisherOf(int s) {
    if (!publisher.equals("mixed")) return publisher;
    return s % 4 == 3 ? "otel" : "api"; // one sender in four through OpenTelemetry
  }

  private Thread newSender(RunContext run, int s, CountDownLatch arrived, CountDownLatch gate) {
    String kind = s < virtual ? "virtual" : "platform";
    String via = publisherOf(s);
    run.manifest().sender(s, kind, via);
    Runnable body =
        run.guarded(
            () -> {
              if (gate != null) {
                arrived.countDown();
                gate.await();
              }
              new Sender(run, s, s * markersEach, markersEach, run.publisher(via)).run(plan, leaky);
            });
    Thread.Builder builder = kind.equals("virtual") ? Thread.ofVirtual() : Thread.ofPlatform();
    return builder.name("sender-" + s).unstarted(body);
  }

  @Override
  public void run(RunContext run, Deadline deadline) throws Exception {
    int batch =
        switch (lifetimes) {
          case "concurrent" -> senders();
          case "sequential" -> 1;
          default -> wave;
        };
    for (int first = 0; first < senders(); first += batch) {
      int n = Math.min(batch, senders() - first);
      CountDownLatch arrived = new CountDownLatch(n);
      CountDownLatch gate = n > 1 ? new CountDownLatch(1) : null;
      List<Thread> threads = new ArrayList<>(n);
      for (int s = first; s < first + n; s++) threads.add(newSender(run, s, arrived, gate));
      for (Thread t : threads) t.start();
      if (gate != null) {
        deadline.await(arrived, "senders " + first + ".." + (first + n - 1) + " to start");
        gate.countDown(); // all of this batch are alive and parked (or blocked) at the gate
      }
      for (Thread t : threads) deadline.join(t);
      if (!run.failures().isEmpty()) return;
      // Churn: a record comes back to the pool once its thread ended AND the garbage collector
      // found its Java view unreachable (docs/design.md); a collection between waves lets later
      // waves get the records of earlier ones, as a busy service's own collections do.
      if (lifetimes.equals("waves")) System.gc();
    }
  }
}
