package io.vtctx.bench.service;

import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.ReadWriteSpan;
import io.opentelemetry.sdk.trace.ReadableSpan;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.util.Collection;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * The service's OpenTelemetry SDK, as a service configures it: every span sampled, ended spans
 * batched by the SDK's BatchSpanProcessor, W3C trace-context propagation. There is no collector on
 * this machine, so the exporter counts the spans it is handed instead of sending them. The batch
 * queue holds 64k spans (the SDK's default is 2,048): a run must drop none, or configurations
 * that drop more would look cheaper. The run checks both counts against the requests served.
 */
final class Telemetry implements AutoCloseable {
  private final SdkTracerProvider provider;
  private static final int QUEUE_SPANS = 1 << 16;

  private final LongAdder ended = new LongAdder();
  private final LongAdder exported = new LongAdder();

  Telemetry(String serviceName) {
    provider =
        SdkTracerProvider.builder()
            .setResource(
                Resource.getDefault()
                    .merge(Resource.create(Attributes.of(ServiceAttributes.NAME, serviceName))))
            .addSpanProcessor(new EndCounter())
            .addSpanProcessor(
                BatchSpanProcessor.builder(new CountingExporter())
                    .setMaxQueueSize(QUEUE_SPANS)
                    .build())
            .build();
  }

  Tracer tracer() {
    return provider.get("io.vtctx.bench.service");
  }

  static TextMapPropagator propagator() {
    return W3CTraceContextPropagator.getInstance();
  }

  /** Spans ended so far. */
  long ended() {
    return ended.sum();
  }

  /** Spans exported so far, after handing every ended span to the exporter. */
  long flushAndCountExported() {
    provider.forceFlush().join(10, TimeUnit.SECONDS);
    return exported.sum();
  }

  @Override
  public void close() {
    provider.close();
  }

  private final class EndCounter implements SpanProcessor {
    @Override
    public void onStart(Context parent, ReadWriteSpan span) {}

    @Override
    public boolean isStartRequired() {
      return false;
    }

    @Override
    public void onEnd(ReadableSpan span) {
      ended.increment();
    }

    @Override
    public boolean isEndRequired() {
      return true;
    }
  }

  private final class CountingExporter implements SpanExporter {
    @Override
    public CompletableResultCode export(Collection<SpanData> spans) {
      exported.add(spans.size());
      return CompletableResultCode.ofSuccess();
    }

    @Override
    public CompletableResultCode flush() {
      return CompletableResultCode.ofSuccess();
    }

    @Override
    public CompletableResultCode shutdown() {
      return CompletableResultCode.ofSuccess();
    }
  }
}
