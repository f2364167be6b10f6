package io.vtctx.otel;

import io.opentelemetry.sdk.autoconfigure.spi.AutoConfigurationCustomizer;
import io.opentelemetry.sdk.autoconfigure.spi.AutoConfigurationCustomizerProvider;
import java.util.List;
import java.util.Map;

/**
 * Installs {@link VtctxContextStorage} when the OpenTelemetry SDK is autoconfigured: by the
 * application ({@code AutoConfiguredOpenTelemetrySdk}, found through {@code META-INF/services}) or
 * by the OpenTelemetry Java agent (this jar given as {@code -Dotel.javaagent.extensions}).
 *
 * <p>It reads {@code otel.vtctx.record.attributes} from the autoconfigured properties (the span
 * attributes copied into records).
 *
 * <p>It also adds a span processor that checks, at the first span start, that the vtctx storage
 * made it into the context storage: if the storage was created before autoconfiguration (some code
 * used the context first), it logs one warning telling to call {@link
 * VtctxContextStorage#install()} earlier, instead of staying silent.
 */
public final class VtctxAutoConfigurationCustomizerProvider
    implements AutoConfigurationCustomizerProvider {
  /** For the service loader. */
  public VtctxAutoConfigurationCustomizerProvider() {}

  @Override
  public void customize(AutoConfigurationCustomizer customizer) {
    VtctxContextStorage.install();
    // The autoconfigured value of otel.vtctx.record.attributes (system property, environment,
    // configuration file, property suppliers) wins over what was read at class loading.
    customizer.addPropertiesCustomizer(
        config -> {
          String names = config.getString(RecordAttributeConfig.PROPERTY);
          if (names != null) RecordAttributeConfig.set(List.of(names.split(",")));
          return Map.of();
        });
    customizer.addTracerProviderCustomizer(
        (builder, config) -> builder.addSpanProcessor(new InstallCheck()));
  }
}
