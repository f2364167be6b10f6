package io.vtctx.bench;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.ReadWriteSpan;
import io.opentelemetry.sdk.trace.ReadableSpan;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.SpanProcessor;

/**
 * A tracer of real, recording SDK spans for the benchmarks.
 *
 * <p>An SdkTracerProvider WITHOUT span processors hands out OpenTelemetry's no-op tracer (SDK 1.68:
 * {@code TracerSharedState.hasNoSpanProcessor()}), whose spans are all the invalid span: every
 * "span change" would then be no change at all. One processor that does nothing keeps the real
 * tracer; {@link #create} checks that its spans are valid and recording.
 */
final class BenchTracer {
  private BenchTracer() {}

  static Tracer create() {
    Tracer tracer =
        SdkTracerProvider.builder().addSpanProcessor(new NothingProcessor()).build().get("bench");
    Span probe = tracer.spanBuilder("probe").setNoParent().startSpan();
    if (!probe.getSpanContext().isValid() || !probe.isRecording()) {
      throw new IllegalStateException("the benchmark tracer makes no real spans: " + probe);
    }
    return tracer;
  }

  private static final class NothingProcessor implements SpanProcessor {
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

    @Override
    public CompletableResultCode shutdown() {
      return CompletableResultCode.ofSuccess();
    }
  }
}
