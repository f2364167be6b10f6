package io.vtctx.demo;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The service's own request log, one JSON object per request, keyed by trace id: the demo's ground
 * truth for each request's endpoint, time window (CLOCK_MONOTONIC ns, the clock of the reader's
 * sample timestamps), carriers and measured CPU. Entries queue in memory and are written when the
 * demo asks ({@link #flush}), after the load has stopped, so logging adds no I/O to requests.
 */
final class RequestLog {
  private final ConcurrentLinkedQueue<String> pending = new ConcurrentLinkedQueue<>();
  private final AtomicInteger inFlight = new AtomicInteger();
  private final Object idle = new Object();
  private final Path path;
  private long written;

  RequestLog(Path path) {
    this.path = path;
  }

  /** A request entered the handler; its entry is due. */
  void begin() {
    inFlight.incrementAndGet();
  }

  /** The request's entry (called last, after its span ended). */
  void end(String json) {
    pending.add(json);
    if (inFlight.decrementAndGet() == 0) {
      synchronized (idle) {
        idle.notifyAll();
      }
    }
  }

  /**
   * Waits (up to {@code timeoutMillis}) until no request is in its handler, then appends every
   * queued entry to the file. Returns the number of entries written so far, or -1 on timeout.
   */
  long flush(long timeoutMillis) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
    synchronized (idle) {
      while (inFlight.get() > 0) {
        long left = (deadline - System.nanoTime()) / 1_000_000L;
        if (left <= 0) return -1;
        idle.wait(left);
      }
    }
    try (BufferedWriter out =
        Files.newBufferedWriter(
            path,
            StandardCharsets.UTF_8,
            StandardOpenOption.CREATE,
            StandardOpenOption.APPEND)) {
      for (String line; (line = pending.poll()) != null; written++) {
        out.write(line);
        out.write('\n');
      }
    }
    return written;
  }
}
