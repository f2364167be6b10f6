package io.vtctx.bench.jmh;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.ReadWriteSpan;
import io.opentelemetry.sdk.trace.ReadableSpan;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.SpanProcessor;

/**
 * A tracer of real, recording SDK spans. Without any span processor the SDK (1.68) hands out its
 * no-op tracer, whose spans are all the invalid span and would make every span change no change;
 * one processor that does nothing keeps the real tracer, and the probe span proves it.
 */
final class Tracing {
  private Tracing() {}

  static Tracer recordingTracer() {
    Tracer tracer =
        SdkTracerProvider.builder().addSpanProcessor(new NothingProcessor()).build().get("bench");
    Span probe = tracer.spanBuilder("probe").setNoParent().startSpan();
    if (!probe.getSpanContext().isValid() || !probe.isRecording()) {
      throw new IllegalStateException("the benchmark tracer makes no real spans: " + probe);
    }
    probe.end();
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
