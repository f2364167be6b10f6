package io.vtctx.testing;

import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import java.util.List;
import java.util.Map;

/**
 * The OpenTelemetry SDK the tests use, autoconfigured exactly as an application would: the
 * autoconfigure SPI finds io.vtctx.otel.VtctxAutoConfigurationCustomizerProvider through
 * META-INF/services. Every test that touches the OpenTelemetry context gets its tracer here first,
 * so the decorator is registered before the context storage is created. The SDK is configured to
 * copy http.route and enduser.id into records (otel.vtctx.record.attributes).
 */
public final class TestOtel {
  /** The span attributes the tests configure to be copied into records (autoconfigured). */
  public static final List<String> RECORD_ATTRIBUTES = List.of("http.route", "enduser.id");

  private static final OpenTelemetrySdk SDK =
      AutoConfiguredOpenTelemetrySdk.builder()
          .addPropertiesSupplier(
              () ->
                  Map.of(
                      "otel.service.name", "vtctx-shim-test",
                      "otel.traces.exporter", "none",
                      "otel.metrics.exporter", "none",
                      "otel.logs.exporter", "none",
                      "otel.vtctx.record.attributes", String.join(",", RECORD_ATTRIBUTES)))
          .disableShutdownHook()
          .build()
          .getOpenTelemetrySdk();

  private TestOtel() {}

  public static Tracer tracer() {
    return SDK.getTracer("vtctx-shim-test");
  }
}
