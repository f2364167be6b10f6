package io.vtctx.otel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.ContextKey;
import io.opentelemetry.context.ContextStorage;
import io.opentelemetry.context.Scope;
import io.vtctx.ThreadContext;
import io.vtctx.testing.Published;
import io.vtctx.testing.TestOtel;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The vtctx storage's rule, case by case: after every context change the record holds
 * Span.current().
 */
@Tag("agent")
class ScopeSemanticsTest {
  private static Tracer tracer;

  @BeforeAll
  static void setUp() {
    tracer = TestOtel.tracer();
    assertTrue(Published.init(), "agent not loaded");
  }

  /** Runs {@code body} on a fresh virtual thread and rethrows what it threw. */
  private static void onVirtualThread(Runnable body) throws Exception {
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread t = Thread.ofVirtual().uncaughtExceptionHandler((th, e) -> failure.set(e)).start(body);
    assertTrue(t.join(Duration.ofSeconds(30)), "test thread did not finish");
    if (failure.get() != null) throw new AssertionError(failure.get());
  }

  private static void assertPublishes(SpanContext expected) {
    assertNull(Published.mismatch(ThreadContext.recordAddress(), expected));
  }

  /** Makes `span` current, checks that the record holds it, and closes the scope. */
  private static void assertPublishesWhileCurrent(Span span) {
    try (Scope s = span.makeCurrent()) {
      assertPublishes(span.getSpanContext());
    }
  }

  private static void assertPublishesCurrent() {
    assertPublishes(Span.current().getSpanContext());
  }

  @Test
  void theDecoratorIsWhatTheSpiInstalled() {
    assertTrue(VtctxContextStorage.isInstalled());
    assertTrue(
        ContextStorage.get() instanceof VtctxContextStorage, ContextStorage.get().toString());
  }

  /** Many new spans and traces on one thread: each id cache entry is replaced many times. */
  @Test
  void manyNewSpansAndTracesOnOneThread() throws Exception {
    onVirtualThread(
        () -> {
          Span root = tracer.spanBuilder("root").startSpan();
          try (Scope sr = root.makeCurrent()) {
            for (int i = 0; i < 300; i++) {
              Span span =
                  i % 3 == 0
                      ? tracer.spanBuilder("trace").setNoParent().startSpan()
                      : tracer.spanBuilder("child").startSpan();
              try (Scope s = span.makeCurrent()) {
                assertPublishes(span.getSpanContext());
                if (i % 5 == 0) {
                  try (Scope again = Context.current().with(span).makeCurrent()) {
                    assertPublishes(span.getSpanContext());
                  }
                }
              }
              assertPublishes(root.getSpanContext());
            }
          }
          assertPublishes(null);
        });
  }

  /**
   * Writes through the plain API between scope changes: the storage's memory of what the record
   * holds (which cached span, none) must never let it skip a change back to a span.
   */
  @Test
  void directWritesBetweenScopeChangesAreNeverSkipped() throws Exception {
    ContextKey<String> key = ContextKey.named("other");
    onVirtualThread(
        () -> {
          Span a = tracer.spanBuilder("a").startSpan();
          try (Scope sa = a.makeCurrent()) {
            Span b = tracer.spanBuilder("b").startSpan();
            assertPublishesWhileCurrent(b);
            assertPublishes(a.getSpanContext()); // from the cache: both spans are in it now
            ThreadContext.setHex("0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331", 1);
            // The same span again, in another context: must be written again.
            try (Scope same = Context.current().with(key, "x").makeCurrent()) {
              assertPublishes(a.getSpanContext());
            }
            ThreadContext.set(1L, 2L, 3L, 0);
            try (Scope same = Context.current().with(key, "y").makeCurrent()) {
              assertPublishes(a.getSpanContext());
            }
            ThreadContext.set(1L, 2L, 3L, 0);
            try (Scope sb = b.makeCurrent()) { // b is still cached
              assertPublishes(b.getSpanContext());
              ThreadContext.clear();
            }
            assertPublishes(a.getSpanContext());
            ThreadContext.setHex("0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331", 1);
            ThreadContext.setHex("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7", 1);
            // Both cache entries now hold the plain API's ids: a and b are decoded again.
            assertPublishesWhileCurrent(b);
            assertPublishes(a.getSpanContext());
          }
          assertPublishes(null);
        });
  }

  @Test
  void nestedScopesRestoreTheOuterSpan() throws Exception {
    onVirtualThread(
        () -> {
          assertPublishes(null);
          Span a = tracer.spanBuilder("a").startSpan();
          try (Scope sa = a.makeCurrent()) {
            assertPublishes(a.getSpanContext());
            Span b = tracer.spanBuilder("b").startSpan();
            try (Scope sb = b.makeCurrent()) {
              assertPublishes(b.getSpanContext());
              Span c = tracer.spanBuilder("c").startSpan();
              try (Scope sc = c.makeCurrent()) {
                assertPublishes(c.getSpanContext());
                assertEquals(a.getSpanContext().getTraceId(), c.getSpanContext().getTraceId());
              }
              assertPublishes(b.getSpanContext());
            }
            assertPublishes(a.getSpanContext());
          }
          assertPublishes(null);
        });
  }

  @Test
  void contextWithoutValidSpanLeavesValidZero() throws Exception {
    onVirtualThread(
        () -> {
          Span a = tracer.spanBuilder("a").startSpan();
          try (Scope sa = a.makeCurrent()) {
            try (Scope root = Context.root().makeCurrent()) {
              assertPublishes(null);
            }
            assertPublishes(a.getSpanContext());
            try (Scope invalid = Span.getInvalid().makeCurrent()) {
              assertPublishes(null);
            }
            assertPublishes(a.getSpanContext());
          }
        });
  }

  @Test
  void unsampledSpansArePublishedWithFlagsZero() throws Exception {
    onVirtualThread(
        () -> {
          SpanContext unsampled =
              SpanContext.create(
                  "0123456789abcdeffedcba9876543210",
                  "1122334455667788",
                  io.opentelemetry.api.trace.TraceFlags.getDefault(),
                  io.opentelemetry.api.trace.TraceState.getDefault());
          try (Scope s = Span.wrap(unsampled).makeCurrent()) {
            assertPublishes(unsampled);
            assertEquals(0, Published.now().flags());
            assertEquals(1, Published.now().valid());
          }
        });
  }

  @Test
  void aContextChangeThatKeepsTheSpanKeepsTheRecord() throws Exception {
    onVirtualThread(
        () -> {
          ContextKey<String> key = ContextKey.named("other");
          Span a = tracer.spanBuilder("a").startSpan();
          try (Scope sa = a.makeCurrent();
              Scope sk = Context.current().with(key, "x").makeCurrent()) {
            assertSame(a, Span.current());
            assertPublishes(a.getSpanContext());
          }
        });
  }

  // A scope that keeps the span writes nothing at open or close (the delegate's own scope): the
  // record must still follow every change around it, also with closes out of order.
  @Test
  void scopesThatKeepTheSpanAroundChangedSpans() throws Exception {
    onVirtualThread(
        () -> {
          ContextKey<String> key = ContextKey.named("other");
          Scope none = Context.current().with(key, "no span").makeCurrent();
          assertPublishes(null);
          Span a = tracer.spanBuilder("a").startSpan();
          Scope sa = a.makeCurrent();
          Scope kept = Context.current().with(key, "x").makeCurrent();
          assertPublishes(a.getSpanContext());
          Span b = tracer.spanBuilder("b").startSpan();
          Scope sb = b.makeCurrent();
          Scope keptB = Context.current().with(key, "y").makeCurrent();
          assertPublishes(b.getSpanContext());
          kept.close(); // not current: ignored by OpenTelemetry
          assertSame(b, Span.current());
          assertPublishesCurrent();
          keptB.close();
          assertPublishes(b.getSpanContext());
          sb.close();
          assertSame(a, Span.current());
          assertPublishes(a.getSpanContext());
          kept.close();
          assertPublishes(a.getSpanContext());
          sa.close();
          assertPublishes(null);
          none.close();
          assertPublishes(null);
        });
  }

  @Test
  void outOfOrderCloseKeepsWhatIsReallyCurrent() throws Exception {
    onVirtualThread(
        () -> {
          Span a = tracer.spanBuilder("a").startSpan();
          Span b = tracer.spanBuilder("b").startSpan();
          Scope sa = a.makeCurrent();
          Scope sb = b.makeCurrent();
          sa.close(); // not the current scope: OpenTelemetry ignores it, b stays current
          assertSame(b, Span.current());
          assertPublishesCurrent();
          sb.close();
          assertSame(a, Span.current());
          assertPublishesCurrent();
          sa.close(); // now it is current: closes
          assertPublishes(null);
        });
  }

  @Test
  void contextCarriedToAnotherThreadIsPublishedThere() throws Exception {
    onVirtualThread(
        () -> {
          Span a = tracer.spanBuilder("a").startSpan();
          AtomicReference<String> inOther = new AtomicReference<>("not run");
          try (Scope sa = a.makeCurrent()) {
            Thread other =
                Thread.ofVirtual()
                    .start(
                        Context.current()
                            .wrap(
                                () ->
                                    inOther.set(
                                        Published.mismatch(
                                            ThreadContext.recordAddress(), a.getSpanContext()))));
            try {
              assertTrue(other.join(Duration.ofSeconds(30)));
            } catch (InterruptedException e) {
              throw new AssertionError(e);
            }
            assertPublishes(a.getSpanContext()); // the other thread's record is its own
          }
          assertNull(inOther.get());
        });
  }

  @Test
  void endingASpanDoesNotChangeWhatIsCurrent() throws Exception {
    onVirtualThread(
        () -> {
          Span a = tracer.spanBuilder("a").startSpan();
          try (Scope sa = a.makeCurrent()) {
            a.end();
            assertSame(a, Span.current());
            assertPublishes(a.getSpanContext());
          }
          assertPublishes(null);
        });
  }

  @Test
  void platformThreadsToo() throws Exception {
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread t =
        Thread.ofPlatform()
            .uncaughtExceptionHandler((th, e) -> failure.set(e))
            .start(
                () -> {
                  Span a = tracer.spanBuilder("a").startSpan();
                  try (Scope sa = a.makeCurrent()) {
                    Span b = tracer.spanBuilder("b").startSpan();
                    assertPublishesWhileCurrent(b);
                    assertPublishes(a.getSpanContext());
                  }
                  assertPublishes(null);
                });
    assertTrue(t.join(Duration.ofSeconds(30)));
    if (failure.get() != null) throw new AssertionError(failure.get());
  }
}
