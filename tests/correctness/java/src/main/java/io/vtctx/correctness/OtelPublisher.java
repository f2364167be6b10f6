package io.vtctx.correctness;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.vtctx.otel.VtctxContextStorage;
import io.vtctx.testing.DiscardingSpanProcessor;

/**
 * Publishes through OpenTelemetry: a root span per thread, a child span per marker, each made
 * current with {@code makeCurrent()}. Nothing here touches vtctx: the shim's ContextStorage
 * decorator writes the record at every scope change, as it would in an instrumented application.
 * The ground truth comes from {@code Span.current()}, i.e. OpenTelemetry's own state.
 */
final class OtelPublisher implements Publisher {
  private static volatile Tracer tracer;

  private final Ids ids;
  private Span root;
  private Scope rootScope;
  private Span child;
  private Scope childScope;

  OtelPublisher(Ids ids) {
    this.ids = ids;
  }

  /**
   * Installs the decorator before OpenTelemetry creates its context storage, builds the SDK
   * tracer, and proves the decorator is in the storage. Call before any thread uses a context.
   */
  static void setUp() {
    VtctxContextStorage.install();
    io.opentelemetry.context.Context.current(); // creates the storage, with the decorator
    if (!VtctxContextStorage.isInstalled()) {
      throw new IllegalStateException("the vtctx ContextStorage decorator is not installed");
    }
    tracer =
        SdkTracerProvider.builder()
            .setIdGenerator(new PlannedIds())
            .addSpanProcessor(new DiscardingSpanProcessor())
            .build()
            .get("io.vtctx.correctness");
  }

  @Override
  public void begin(int sender) {
    PlannedIds.plan(
        Ids.hex16(ids.traceHigh()) + Ids.hex16(Ids.traceLow(sender)),
        Ids.hex16(Ids.rootSpan(sender)));
    root = tracer.spanBuilder("thread").setNoParent().startSpan();
    rootScope = root.makeCurrent();
  }

  @Override
  public void open(int sender, int seq) {
    PlannedIds.plan(null, Ids.hex16(Ids.span(sender, seq)));
    child = tracer.spanBuilder("marker").startSpan(); // child of the current (root) span
    childScope = child.makeCurrent();
  }

  @Override
  public Context current() {
    SpanContext sc = Span.current().getSpanContext();
    if (!sc.isValid()) throw new IllegalStateException("no valid span is current");
    String trace = sc.getTraceId();
    return new Context(
        Long.parseUnsignedLong(trace, 0, 16, 16),
        Long.parseUnsignedLong(trace, 16, 32, 16),
        Long.parseUnsignedLong(sc.getSpanId(), 16),
        sc.getTraceFlags().asByte() & 0xff);
  }

  @Override
  public void close() {
    childScope.close();
    child.end();
    child = null;
    childScope = null;
  }

  @Override
  public void end(boolean leaky) {
    if (leaky) return; // the last marker's scope and the root scope stay open as the thread ends
    rootScope.close();
    root.end();
  }

  @Override
  public String name() {
    return "otel";
  }
}
