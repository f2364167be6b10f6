package io.vtctx.testing;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.trace.ReadWriteSpan;
import io.opentelemetry.sdk.trace.ReadableSpan;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.SpanProcessor;

/**
 * A span processor that keeps nothing, so that an SDK tracer makes real, recording spans that go
 * nowhere (for the benchmarks and the correctness harness; a source folder they compile in).
 *
 * <p>An SdkTracerProvider WITHOUT span processors hands out OpenTelemetry's no-op tracer (SDK 1.68:
 * {@code TracerSharedState.hasNoSpanProcessor()}), whose spans are all the invalid span: every
 * "span change" would then be no change at all. One processor that does nothing keeps the real
 * tracer, and costs nothing at start or end (neither is required).
 */
public final class DiscardingSpanProcessor implements SpanProcessor {
  /** A tracer of real, recording spans; a probe span checks that they are valid and recording. */
  public static Tracer recordingTracer(String instrumentationName) {
    Tracer tracer =
        SdkTracerProvider.builder()
            .addSpanProcessor(new DiscardingSpanProcessor())
            .build()
            .get(instrumentationName);
    Span probe = tracer.spanBuilder("probe").setNoParent().startSpan();
    if (!probe.getSpanContext().isValid() || !probe.isRecording()) {
      throw new IllegalStateException("the tracer makes no real spans: " + probe);
    }
    probe.end();
    return tracer;
  }

  @Override
  public void onStart(Context parentContext, ReadWriteSpan span) {}

  @Override
  public boolean isStartRequired() {
    return false;
  }

  @Override
  public void onEnd(ReadableSpan span) {}

  @Override
  public boolean isEndRequired() {
    return false;
  }
}
