package io.vtctx.bench;

import io.vtctx.ThreadContext;

/**
 * The publish_churn workload of {@link Transitions}: start ops virtual threads that each publish
 * one context through the shim's public API and end, then join them all. What a publishing thread
 * costs beyond an empty one (its record, its thread-index entry, both returned after it ends) is
 * this workload's time minus churn's. Without the agent the publish finds no record and does
 * nothing. In its own class so that the other workloads never load the shim.
 */
final class PublishingChurn {
  private static final long TRACE_HIGH = 0x0af7651916cd43ddL;
  private static final long TRACE_LOW = 0x8448eb211c80319cL;

  private PublishingChurn() {}

  static void run(int ops) throws InterruptedException {
    Thread[] threads = new Thread[ops];
    for (int i = 0; i < ops; i++) {
      long span = i + 1; // never the invalid (all-zero) span id
      threads[i] =
          Thread.ofVirtual().start(() -> ThreadContext.set(TRACE_HIGH, TRACE_LOW, span, 1));
    }
    for (Thread t : threads) t.join();
  }
}
