package io.vtctx.testing;

import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import java.util.Map;

/**
 * The OpenTelemetry SDK the tests use, autoconfigured exactly as an application would: the
 * autoconfigure SPI finds io.vtctx.otel.VtctxAutoConfigurationCustomizerProvider through
 * META-INF/services. Every test that touches the OpenTelemetry context gets its tracer here first,
 * so the decorator is registered before the context storage is created.
 */
public final class TestOtel {
  private static final OpenTelemetrySdk SDK =
      AutoConfiguredOpenTelemetrySdk.builder()
          .addPropertiesSupplier(
              () ->
                  Map.of(
                      "otel.service.name", "vtctx-shim-test",
                      "otel.traces.exporter", "none",
                      "otel.metrics.exporter", "none",
                      "otel.logs.exporter", "none"))
          .disableShutdownHook()
          .build()
          .getOpenTelemetrySdk();

  private TestOtel() {}

  public static Tracer tracer() {
    return SDK.getTracer("vtctx-shim-test");
  }
}
