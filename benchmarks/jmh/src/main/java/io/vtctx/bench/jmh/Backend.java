package io.vtctx.bench.jmh;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * A downstream service on its own virtual thread: callers block (and so unmount) until it answers.
 * Stands in for a blocking RPC or database call without a network or a timer in the measurement.
 */
final class Backend {
  private record Call(long argument, CompletableFuture<Long> reply) {}

  private static final Call STOP = new Call(0, null);
  private final LinkedBlockingQueue<Call> queue = new LinkedBlockingQueue<>();
  private final Thread thread = Thread.ofVirtual().name("backend").start(this::serve);

  /** Blocks the calling (virtual) thread until the backend has answered. */
  long call(long argument) {
    CompletableFuture<Long> reply = new CompletableFuture<>();
    queue.add(new Call(argument, reply));
    return reply.join();
  }

  void stop() throws InterruptedException {
    queue.add(STOP);
    thread.join();
  }

  private void serve() {
    try {
      for (Call c = queue.take(); c != STOP; c = queue.take()) c.reply().complete(c.argument() + 1);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
