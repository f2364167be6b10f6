package io.vtctx.correctness;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/** What every sender of a run shares: the marker sink, the manifest, the ids, failures. */
record RunContext(MarkerSink sink, Manifest manifest, Ids ids, Queue<Throwable> failures) {
  RunContext(MarkerSink sink, Manifest manifest, Ids ids) {
    this(sink, manifest, ids, new ConcurrentLinkedQueue<>());
  }

  /** Wraps a thread body so that any failure is kept for the main thread to report. */
  Runnable guarded(ThrowingRunnable body) {
    return () -> {
      try {
        body.run();
      } catch (Throwable t) {
        failures.add(t);
      }
    };
  }

  interface ThrowingRunnable {
    void run() throws Exception;
  }

  Publisher publisher(String kind) {
    return switch (kind) {
      case "api" -> new ApiPublisher(ids);
      case "otel" -> new OtelPublisher(ids);
      default -> throw new IllegalArgumentException("publisher " + kind);
    };
  }
}
