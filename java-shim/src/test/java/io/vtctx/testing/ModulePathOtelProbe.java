package io.vtctx.testing;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.autoconfigure.spi.AutoConfigurationCustomizerProvider;
import io.vtctx.otel.VtctxAutoConfigurationCustomizerProvider;
import io.vtctx.otel.VtctxContextStorage;
import java.util.List;
import java.util.ServiceLoader;

/**
 * The OpenTelemetry half of {@link ModulePathProbe} (only loaded when OpenTelemetry is on the
 * module path): the module's {@code provides} offers the autoconfigure customizer, and the vtctx
 * storage publishes a span made current.
 */
final class ModulePathOtelProbe {
  private ModulePathOtelProbe() {}

  static void check(List<String> failures) {
    boolean provided =
        ServiceLoader.load(AutoConfigurationCustomizerProvider.class).stream()
            .map(ServiceLoader.Provider::type)
            .anyMatch(
                t ->
                    t == VtctxAutoConfigurationCustomizerProvider.class
                        && "io.vtctx".equals(t.getModule().getName()));
    ModulePathProbe.check(failures, provided, "io.vtctx provides no autoconfigure customizer");

    VtctxContextStorage.install(); // before the first context operation creates the storage
    String span = "b7ad6b7169203331";
    SpanContext context =
        SpanContext.create(
            ModulePathProbe.TRACE, span, TraceFlags.getSampled(), TraceState.getDefault());
    try (Scope s = Context.current().with(Span.wrap(context)).makeCurrent()) {
      ModulePathProbe.checkPublished(
          failures, ModulePathProbe.TRACE + span + "0101", "OpenTelemetry scope");
    }
    ModulePathProbe.check(failures, VtctxContextStorage.isInstalled(), "storage not installed");
  }
}
