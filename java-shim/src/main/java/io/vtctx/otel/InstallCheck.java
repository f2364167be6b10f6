package io.vtctx.otel;

import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.trace.ReadWriteSpan;
import io.opentelemetry.sdk.trace.ReadableSpan;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.vtctx.internal.AgentLink;
import java.lang.System.Logger.Level;

/**
 * Warns once, at the first span start, if {@link VtctxContextStorage} is not in OpenTelemetry's
 * context storage although the vtctx agent is active: spans would then never reach the records. By
 * the first span start the storage exists (starting a span reads the current context).
 */
final class InstallCheck implements SpanProcessor {
  private static final System.Logger LOG = System.getLogger("io.vtctx");
  private volatile boolean checked;

  @Override
  public void onStart(Context parentContext, ReadWriteSpan span) {
    if (checked) return;
    checked = true;
    if (!VtctxContextStorage.isInstalled() && AgentLink.active()) {
      LOG.log(
          Level.WARNING,
          "vtctx: OpenTelemetry created its context storage before the vtctx storage was"
              + " registered, so spans are not published; call"
              + " io.vtctx.otel.VtctxContextStorage.install() before the first context use");
    }
  }

  @Override
  public boolean isStartRequired() {
    return true;
  }

  @Override
  public void onEnd(ReadableSpan span) {}

  @Override
  public boolean isEndRequired() {
    return false;
  }
}
