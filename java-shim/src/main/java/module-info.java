/**
 * vtctx: publishes the current trace context into the thread's OTEP 4947 record, which the vtctx
 * agent (libvtctx.so) binds to every thread. {@code io.vtctx} is the dependency-free API, {@code
 * io.vtctx.otel} the OpenTelemetry integration. The natives and the record access live in {@code
 * io.vtctx.internal}, which is neither exported nor opened: on the module path no other module
 * can reach them, by reference or by reflection.
 *
 * <p>OpenTelemetry is optional ({@code requires static}): the application, or the OpenTelemetry
 * Java agent, brings it; where present, users of {@code io.vtctx.otel} read the two modules its
 * signatures name. Its modules are automatic (named in their manifests). The jar works the same on
 * the class path, where this descriptor is ignored.
 */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module io.vtctx {
  requires static io.opentelemetry.api;
  requires static transitive io.opentelemetry.context;
  requires static transitive io.opentelemetry.sdk.autoconfigure.spi;
  requires static io.opentelemetry.sdk.common;
  requires static io.opentelemetry.sdk.trace;

  exports io.vtctx;
  exports io.vtctx.otel;

  provides io.opentelemetry.sdk.autoconfigure.spi.AutoConfigurationCustomizerProvider with
      io.vtctx.otel.VtctxAutoConfigurationCustomizerProvider;
}
