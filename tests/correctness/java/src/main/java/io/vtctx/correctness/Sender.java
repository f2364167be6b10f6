package io.vtctx.correctness;

import io.vtctx.ThreadContext;

/**
 * One sender's work: for each of its markers, make the marker's context current, announce it,
 * transition, record the ground truth, write the marker, transition, and end the scope (except
 * the last one in leaky-final mode).
 */
final class Sender {
  private final RunContext run;
  private final int sender;
  private final int firstMarker;
  private final int markers;
  private final Publisher publisher;

  Sender(RunContext run, int sender, int firstMarker, int markers, Publisher publisher) {
    this.run = run;
    this.sender = sender;
    this.firstMarker = firstMarker;
    this.markers = markers;
    this.publisher = publisher;
  }

  /** The whole life of a sender thread: begin, all markers, end. */
  void run(TransitionPlan plan, boolean leaky) throws InterruptedException {
    publisher.begin(sender);
    markers(0, plan, leaky);
    publisher.end(leaky);
    run.manifest().recordAtEnd(sender, ThreadContext.recordAddress());
  }

  /** Markers {@code firstSeq..}: sequence numbers continue those of earlier markers. */
  void markers(int firstSeq, TransitionPlan plan, boolean leaky) throws InterruptedException {
    for (int i = 0; i < markers; i++) {
      int q = firstSeq + i;
      int m = firstMarker + i;
      publisher.open(sender, q);
      if (i == 0) run.manifest().record(sender, boundRecord());
      run.sink().announce(m, MarkerSink.SET);
      plan.before(sender, q).run(sender);
      run.manifest().marker(m, sender, q, publisher.current(), Manifest.PHASE_AFTER);
      run.sink().marker(m);
      plan.after(sender, q).run(sender);
      if (!(leaky && i == markers - 1)) {
        publisher.close();
        run.sink().announce(m, MarkerSink.CLEAR);
      }
    }
  }

  /** The record the agent bound to this thread; 0 would make every identity check fail. */
  static long boundRecord() {
    long address = ThreadContext.recordAddress();
    if (address == 0) {
      throw new IllegalStateException("no record bound to " + Thread.currentThread());
    }
    return address;
  }
}
