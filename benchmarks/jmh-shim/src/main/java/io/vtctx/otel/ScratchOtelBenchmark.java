package io.vtctx.otel;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.vtctx.internal.ThreadRecord;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.*;

@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
public class ScratchOtelBenchmark {
  Context outer, child;
  ThreadRecord record;
  boolean flip;

  @Setup
  public void setUp() {
    Tracer tracer = SdkTracerProvider.builder().build().get("bench");
    Span parent = tracer.spanBuilder("outer").setNoParent().startSpan();
    outer = Context.root().with(parent);
    child = outer.with(tracer.spanBuilder("child").setParent(outer).startSpan());
    record = ThreadRecord.current();
  }

  @Benchmark public Object current() { return ThreadRecord.current(); }
  @Benchmark public Object spanContext() { return Span.fromContextOrNull(child).getSpanContext(); }
  @Benchmark public void publishSame() { SpanPublisher.publish(record, child); }
  @Benchmark public void publishAlternating() { flip = !flip; SpanPublisher.publish(record, flip ? child : outer); }
  @Benchmark public void publishAlternatingWithLookup() { flip = !flip; SpanPublisher.publish(ThreadRecord.current(), flip ? child : outer); }
}
