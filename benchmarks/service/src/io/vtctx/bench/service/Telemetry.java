package io.vtctx.bench.service;

import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.util.Collection;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * The service's OpenTelemetry SDK, as a service configures it: every span sampled, ended spans
 * batched by the SDK's BatchSpanProcessor, W3C trace-context propagation. There is no collector on
 * this machine, so the exporter counts the spans it is handed instead of sending them; the run
 * checks that count against the requests served.
 */
final class Telemetry implements AutoCloseable {
  private final SdkTracerProvider provider;
  private final LongAdder exported = new LongAdder();

  Telemetry(String serviceName) {
    provider =
        SdkTracerProvider.builder()
            .setResource(
                Resource.getDefault()
                    .merge(Resource.create(Attributes.of(ServiceAttributes.NAME, serviceName))))
            .addSpanProcessor(BatchSpanProcessor.builder(new CountingExporter()).build())
            .build();
  }

  Tracer tracer() {
    return provider.get("io.vtctx.bench.service");
  }

  static TextMapPropagator propagator() {
    return W3CTraceContextPropagator.getInstance();
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
