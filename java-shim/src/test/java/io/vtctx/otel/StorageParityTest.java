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
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Both forms of the vtctx storage against OpenTelemetry's default storage, as a model: random
 * sequences of attaches (new, already current, null, contexts with and without spans) and closes
 * (in order, out of order, twice, on another thread) must leave the same current context after
 * every step, and the record must hold the span of that context.
 */
@Tag("agent")
class StorageParityTest {
  private static final ContextKey<String> KEY = ContextKey.named("parity");
  private static Tracer tracer;

  @BeforeAll
  static void setUp() {
    tracer = TestOtel.tracer();
    assertTrue(Published.init(), "agent not loaded");
  }

  /** A storage that is not OpenTelemetry's default, so that vtctx decorates it. */
  private static final class Forwarding implements ContextStorage {
    private final ContextStorage delegate = ContextStorage.defaultStorage();

    @Override
    public Scope attach(Context toAttach) {
      return delegate.attach(toAttach);
    }

    @Override
    public Context current() {
      return delegate.current();
    }
  }

  @Test
  void wrapPicksTheForm() {
    assertTrue(
        VtctxContextStorage.wrap(ContextStorage.defaultStorage())
            instanceof ThreadLocalRecordStorage);
    ContextStorage decorated = VtctxContextStorage.wrap(new Forwarding());
    assertTrue(decorated instanceof DecoratingStorage);
    assertSame(decorated, VtctxContextStorage.wrap(decorated));
  }

  @Test
  void bothFormsBehaveAsTheDefaultStorage() throws Exception {
    compareWithTheDefault();
  }

  /** The same without span attributes copied: publishes take the shorter ids-only path. */
  @Test
  void bothFormsBehaveAsTheDefaultStorageWithoutAttributes() throws Exception {
    VtctxContextStorage.setRecordAttributes(List.of());
    try {
      compareWithTheDefault();
    } finally {
      VtctxContextStorage.setRecordAttributes(TestOtel.RECORD_ATTRIBUTES);
    }
  }

  private static void compareWithTheDefault() throws Exception {
    for (long seed = 1; seed <= 40; seed++) {
      List<String> model = run(ContextStorage.defaultStorage(), seed, false);
      assertEquals(
          model,
          run(VtctxContextStorage.wrap(ContextStorage.defaultStorage()), seed, true),
          "in place of the default, seed " + seed);
      assertEquals(
          model,
          run(VtctxContextStorage.wrap(new Forwarding()), seed, true),
          "decorating, seed " + seed);
    }
  }

  /**
   * Runs the random script of {@code seed} against {@code storage} on a fresh virtual thread and
   * returns which context was current after each step (by index, "null" for none). With {@code
   * checkRecord}, also asserts after each step that the record holds the current span.
   */
  private static List<String> run(ContextStorage storage, long seed, boolean checkRecord)
      throws Exception {
    List<String> trace = new ArrayList<>();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread t =
        Thread.ofVirtual()
            .uncaughtExceptionHandler((th, e) -> failure.set(e))
            .start(() -> script(storage, seed, checkRecord, trace));
    assertTrue(t.join(Duration.ofSeconds(30)), "script did not finish");
    if (failure.get() != null) throw new AssertionError("seed " + seed, failure.get());
    return trace;
  }

  private static void script(
      ContextStorage storage, long seed, boolean checkRecord, List<String> trace) {
    SplittableRandom random = new SplittableRandom(seed);
    // The same contexts for every storage (spans are created once per script run, in order, so
    // their ids differ between runs but their roles do not).
    Span a = tracer.spanBuilder("a").startSpan();
    Span b = tracer.spanBuilder("b").startSpan();
    List<Context> contexts =
        List.of(
            Context.root(),
            Context.root().with(a),
            Context.root().with(a).with(KEY, "same span"),
            Context.root().with(b),
            Context.root().with(KEY, "no span"),
            Context.root().with(Span.getInvalid()));
    List<Scope> open = new ArrayList<>();
    for (int step = 0; step < 60; step++) {
      int op = random.nextInt(10);
      if (op < 5 || open.isEmpty()) {
        int which = random.nextInt(contexts.size() + 2);
        Context toAttach =
            which < contexts.size()
                ? contexts.get(which)
                : which == contexts.size() ? storage.current() : null; // already current, null
        open.add(storage.attach(toAttach));
      } else if (op < 9) {
        // In order most of the time, otherwise any open scope (out of order, or closed again).
        int i = random.nextInt(4) != 0 ? open.size() - 1 : random.nextInt(open.size());
        Scope s = random.nextInt(8) != 0 ? open.remove(i) : open.get(i);
        s.close();
      } else {
        // A close on another thread acts on that thread's own context (none there): no effect here.
        Scope s = open.get(random.nextInt(open.size()));
        Thread other = Thread.ofVirtual().start(s::close);
        try {
          other.join();
        } catch (InterruptedException e) {
          throw new AssertionError(e);
        }
      }
      Context current = storage.current();
      trace.add(label(contexts, current));
      if (checkRecord) {
        Span span = current != null ? Span.fromContextOrNull(current) : null;
        SpanContext expected =
            span != null && span.getSpanContext().isValid() ? span.getSpanContext() : null;
        assertNull(
            Published.mismatch(ThreadContext.recordAddress(), expected), "step " + step + trace);
      }
    }
    while (!open.isEmpty()) open.remove(open.size() - 1).close();
    trace.add(label(contexts, storage.current()));
  }

  private static String label(List<Context> contexts, Context current) {
    return current == null ? "null" : Integer.toString(contexts.indexOf(current));
  }
}
