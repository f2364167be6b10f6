package io.vtctx.otel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.ContextKey;
import io.opentelemetry.context.Scope;
import io.vtctx.ThreadContext;
import io.vtctx.testing.Published;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Thousands of virtual threads (and some platform threads) with real OpenTelemetry SDK spans:
 * nested scopes, parks, yields, sleeps, blocking hand-offs, contended monitors inside spans, a
 * context that keeps the span, a context without span, and spans ended by other threads (on other
 * carriers). After every step, the record that the thread's CARRIER publishes through
 * otel_thread_ctx_v1 must be the thread's own and hold the span current in Java, byte-exact in W3C
 * order (checked against OpenTelemetry's own byte conversion), or valid=0 when no span is current;
 * and its attrs-data must hold exactly the span attributes copied for that step (a route set after
 * makeCurrent, inherited by the child, overridden by the grandchild, restored at each close, none
 * without span), byte-exact.
 */
@Tag("agent")
class VirtualThreadStressTest extends RecordAttributesFixture {
  private static final int VIRTUAL_THREADS = Integer.getInteger("vtctx.test.virtualThreads", 10000);
  private static final int PLATFORM_THREADS = 8;
  private static final int ENDERS = 4;
  private static final long DEADLINE_SECONDS = 240;
  private static final ContextKey<Integer> KEY = ContextKey.named("vtctx-test-id");
  private static final Span POISON = Span.getInvalid();

  private final AtomicLong checks = new AtomicLong();
  private final AtomicLong mismatches = new AtomicLong();
  private final Set<String> carriers = ConcurrentHashMap.newKeySet();
  private final List<String> failures = new ArrayList<>();
  private final BlockingQueue<Span> toEnd = new LinkedBlockingQueue<>();
  private final Object monitor = new Object();

  @Test
  void carriersAlwaysPublishTheCurrentSpan() throws Exception {
    List<Thread> enders = new ArrayList<>();
    for (int i = 0; i < ENDERS; i++) enders.add(Thread.ofVirtual().start(this::endSpans));
    List<Thread> workers = new ArrayList<>();
    for (int i = 0; i < VIRTUAL_THREADS; i += 2) {
      BlockingQueue<Integer> a = new ArrayBlockingQueue<>(1);
      BlockingQueue<Integer> b = new ArrayBlockingQueue<>(1);
      final int id = i;
      workers.add(Thread.ofVirtual().start(() -> work(id, a, b)));
      workers.add(Thread.ofVirtual().start(() -> work(id + 1, b, a)));
    }
    for (int i = 0; i < PLATFORM_THREADS; i++) {
      final int id = VIRTUAL_THREADS + i;
      workers.add(Thread.ofPlatform().start(() -> work(id, null, null)));
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(DEADLINE_SECONDS);
    for (Thread t : workers) joinBy(t, deadline);
    for (int i = 0; i < ENDERS; i++) toEnd.put(POISON);
    for (Thread t : enders) joinBy(t, deadline);

    String summary =
        String.format(
            "checks=%d mismatches=%d carriers=%d first failures=%s",
            checks.get(), mismatches.get(), carriers.size(), failures);
    System.out.println("VirtualThreadStressTest: " + summary);
    assertEquals(0, mismatches.get(), summary);
    assertTrue(checks.get() >= 20L * VIRTUAL_THREADS, "too few checks: " + summary);
    assertTrue(carriers.size() >= 2, "virtual threads ran on fewer than 2 carriers: " + summary);
  }

  private static void joinBy(Thread t, long deadline) throws InterruptedException {
    long left = deadline - System.nanoTime();
    if (left <= 0 || !t.join(java.time.Duration.ofNanos(left))) {
      throw new AssertionError("thread " + t + " did not finish in time");
    }
  }

  private void work(int id, BlockingQueue<Integer> in, BlockingQueue<Integer> out) {
    long record = ThreadContext.recordAddress();
    // Attributes the record must hold (copied from the spans, see TestOtel), per step.
    String rootRoute = "/r/" + id;
    String childUser = "u" + id;
    String ownRoute = "/g/\u20ac/" + id; // a 3-byte character
    Map<Integer, String> none = Map.of();
    Map<Integer, String> rootAttrs = Map.of(route, rootRoute);
    Map<Integer, String> childAttrs = Map.of(route, rootRoute, user, childUser);
    Map<Integer, String> grandchildAttrs = Map.of(route, ownRoute, user, childUser);
    verify(id, record, "start", none);
    Span root = tracer.spanBuilder("root").setNoParent().startSpan();
    try (Scope s1 = root.makeCurrent()) {
      verify(id, record, "root", none);
      root.setAttribute(ROUTE, rootRoute); // after makeCurrent: read at the next span change
      LockSupport.parkNanos(50_000);
      verify(id, record, "park in root", none);
      Span child = tracer.spanBuilder("child").setAttribute(USER, childUser).startSpan();
      try (Scope s2 = child.makeCurrent()) {
        verify(id, record, "child", childAttrs);
        Thread.yield();
        verify(id, record, "yield in child", childAttrs);
        handOff(in, out);
        verify(id, record, "hand-off in child", childAttrs);
        Span grandchild =
            tracer.spanBuilder("grandchild").setAttribute(ROUTE, ownRoute).startSpan();
        try (Scope s3 = grandchild.makeCurrent()) {
          verify(id, record, "grandchild", grandchildAttrs);
          sleepMillis(1);
          verify(id, record, "sleep in grandchild", grandchildAttrs);
          try (Scope same = Context.current().with(KEY, id).makeCurrent()) {
            verify(id, record, "same span, other context", grandchildAttrs);
            LockSupport.parkNanos(20_000);
            verify(id, record, "park, same span", grandchildAttrs);
          }
          verify(id, record, "back from same span", grandchildAttrs);
          try (Scope noSpan = Context.root().makeCurrent()) {
            verify(id, record, "root context", none);
            Thread.yield();
            verify(id, record, "yield in root context", none);
          }
          verify(id, record, "back from root context", grandchildAttrs);
        }
        toEnd.add(grandchild); // ended by another thread, on whichever carrier it runs
        verify(id, record, "grandchild closed", childAttrs);
        synchronized (monitor) {
          verify(id, record, "monitor entered", childAttrs);
          burn(1_000);
        }
        verify(id, record, "monitor left", childAttrs);
      }
      toEnd.add(child);
      verify(id, record, "child closed", rootAttrs);
      handOff(in, out);
      verify(id, record, "hand-off in root", rootAttrs);
    }
    verify(id, record, "root closed", none);
    root.end(); // ended by its own thread, after many remounts
    if (ThreadContext.recordAddress() != record) fail(id, "end", "the thread's record moved");
  }

  private void endSpans() {
    long record = ThreadContext.recordAddress();
    try {
      for (Span s = toEnd.take(); s != POISON; s = toEnd.take()) {
        s.end();
        verify(-1, record, "ender", Map.of()); // enders never make a span current
      }
    } catch (InterruptedException e) {
      fail(-1, "ender", "interrupted");
    }
  }

  private void verify(int id, long record, String step, Map<Integer, String> attributes) {
    checks.incrementAndGet();
    Published p = Published.now(recordSize);
    String m = Published.mismatch(p, record, Span.current().getSpanContext());
    if (m == null) {
      try {
        Map<Integer, String> got = p.attributes();
        if (!got.equals(attributes)) m = "attributes " + got + ", expected " + attributes;
      } catch (IllegalStateException e) {
        m = e.getMessage();
      }
    }
    if (m != null) fail(id, step, m);
    String self = Thread.currentThread().toString();
    int at = self.indexOf('@');
    if (at >= 0) carriers.add(self.substring(at + 1));
  }

  private void fail(int id, String step, String what) {
    mismatches.incrementAndGet();
    synchronized (failures) {
      if (failures.size() < 10) failures.add("thread " + id + " after " + step + ": " + what);
    }
  }

  private static void handOff(BlockingQueue<Integer> in, BlockingQueue<Integer> out) {
    if (in == null) return;
    try {
      out.put(1);
      in.take();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void sleepMillis(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static double sink;

  private static void burn(int n) {
    double x = 1;
    for (int i = 0; i < n; i++) x = Math.sqrt(x + i);
    sink += x;
  }
}
