package io.vtctx.bench;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.ContextKey;
import io.opentelemetry.context.ContextStorage;
import io.vtctx.ThreadContext;
import io.vtctx.internal.TestNatives;
import io.vtctx.otel.VtctxContextStorage;
import io.vtctx.testing.DiscardingSpanProcessor;
import java.nio.ByteBuffer;
import java.util.List;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;

/**
 * OpenTelemetry scope changes with real SDK spans, without ("plain": OpenTelemetry's default
 * storage), with the shim's decorator ("vtctx"), and with the decorator copying the span attribute
 * http.route into the record ("attrs": otel.vtctx.record.attributes=http.route). Each operation is
 * one makeCurrent() and its close(): TWO context changes, both inside an enclosing span (http.route
 * "/users/{id}") that is current for the whole run. Each fork is one storage (the storage is chosen
 * once per JVM).
 *
 * <ul>
 *   <li>changedSpan: a child span made current and closed (both changes rewrite the record's ids;
 *       with attrs, the child inherits the route: attributes read, none written)
 *   <li>changedSpanOwnAttribute: the same with a child that has its own http.route (with attrs,
 *       both changes also rewrite the attribute)
 *   <li>unchangedSpan: a context with the same span and another key (nothing to rewrite or read)
 *   <li>newSpan: a different child span every time ({@link #rotation} in rotation): its span-id is
 *       decoded
 *   <li>newTrace: a different root span of a different trace every time: 48 hex digits decoded;
 *       each root has its own route (8 in rotation), so with attrs both changes rewrite it
 * </ul>
 */
public class ScopeBenchmark extends ShimBenchmark {
  private static final ContextKey<String> KEY = ContextKey.named("bench");
  private static final AttributeKey<String> ROUTE = AttributeKey.stringKey("http.route");
  private static final int ROTATION = 1024;

  /**
   * How many new spans/traces newSpan and newTrace rotate through (a power of two up to 1024): 1024
   * keeps each one's SpanContext and id strings out of L1 between uses (a worst case: plain
   * OpenTelemetry never reads them); 4 keeps them hot, like a span created just before it is made
   * current, while still never in the shim's two-entry id cache.
   */
  @Param({"1024"})
  public int rotation;

  @Param({"plain", "vtctx", "attrs"})
  public String storage;

  private Context child;
  private Context childOwnAttribute;
  private Context sameSpan;
  private final Context[] newSpans = new Context[ROTATION];
  private final Context[] newTraces = new Context[ROTATION];
  private int next;
  private io.opentelemetry.context.Scope outerScope;

  @Setup(Level.Trial)
  public void setUp() {
    if (!storage.equals("plain")) {
      if (storage.equals("attrs")) VtctxContextStorage.setRecordAttributes(List.of("http.route"));
      VtctxContextStorage.install(); // before the first context operation of this JVM
    }
    Tracer tracer = DiscardingSpanProcessor.recordingTracer("bench");
    Span parent =
        tracer.spanBuilder("outer").setNoParent().setAttribute(ROUTE, "/users/{id}").startSpan();
    Context outer = Context.root().with(parent);
    child = outer.with(tracer.spanBuilder("child").setParent(outer).startSpan());
    childOwnAttribute =
        outer.with(
            tracer.spanBuilder("child").setParent(outer).setAttribute(ROUTE, "/child").startSpan());
    sameSpan = outer.with(KEY, "x");
    for (int i = 0; i < ROTATION; i++) {
      newSpans[i] = outer.with(tracer.spanBuilder("c").setParent(outer).startSpan());
      newTraces[i] =
          Context.root()
              .with(
                  tracer
                      .spanBuilder("r")
                      .setNoParent()
                      .setAttribute(ROUTE, "/r/" + (i % 8))
                      .startSpan());
    }
    if (Integer.bitCount(rotation) != 1 || rotation > ROTATION) {
      throw new IllegalArgumentException("rotation must be a power of two <= " + ROTATION);
    }
    outerScope = outer.makeCurrent();
    boolean decorated = ContextStorage.get() instanceof VtctxContextStorage;
    if (decorated == storage.equals("plain")) throw new IllegalStateException("wrong storage");
    if (decorated && ThreadContext.isAgentActive() && ThreadContext.recordAddress() == 0) {
      throw new IllegalStateException("no record for the benchmark thread");
    }
    if (storage.equals("attrs") && ThreadContext.isAgentActive()) {
      ByteBuffer record = TestNatives.currentRecordBuffer(); // the outer span's route copied?
      if (record.get(26) != 2 + "/users/{id}".length()) {
        throw new IllegalStateException("http.route not copied into the record");
      }
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    outerScope.close();
  }

  @Benchmark
  public void changedSpan() {
    try (io.opentelemetry.context.Scope s = child.makeCurrent()) {
      // the scope change is the work
    }
  }

  @Benchmark
  public void changedSpanOwnAttribute() {
    try (io.opentelemetry.context.Scope s = childOwnAttribute.makeCurrent()) {
      // the scope change is the work
    }
  }

  @Benchmark
  public void unchangedSpan() {
    try (io.opentelemetry.context.Scope s = sameSpan.makeCurrent()) {
      // the scope change is the work
    }
  }

  @Benchmark
  public void newSpan() {
    try (io.opentelemetry.context.Scope s = newSpans[next++ & (rotation - 1)].makeCurrent()) {
      // the scope change is the work
    }
  }

  @Benchmark
  public void newTrace() {
    try (io.opentelemetry.context.Scope s = newTraces[next++ & (rotation - 1)].makeCurrent()) {
      // the scope change is the work
    }
  }
}
