package io.vtctx.correctness;

import io.opentelemetry.sdk.trace.IdGenerator;

/**
 * An OpenTelemetry {@link IdGenerator} that hands out the ids the calling thread planned just
 * before starting a span, so that SDK spans carry the harness's self-describing ids. The SDK asks
 * for the ids on the thread that starts the span, inside {@code startSpan()}.
 */
final class PlannedIds implements IdGenerator {
  private static final ThreadLocal<String> TRACE = new ThreadLocal<>();
  private static final ThreadLocal<String> SPAN = new ThreadLocal<>();

  /** The next span started on this thread gets {@code spanHex} (and, if a root, the trace). */
  static void plan(String traceHex, String spanHex) {
    TRACE.set(traceHex);
    SPAN.set(spanHex);
  }

  @Override
  public String generateSpanId() {
    return take(SPAN, "span");
  }

  @Override
  public String generateTraceId() {
    return take(TRACE, "trace");
  }

  private static String take(ThreadLocal<String> slot, String what) {
    String id = slot.get();
    if (id == null) throw new IllegalStateException("no planned " + what + " id on this thread");
    slot.remove();
    return id;
  }
}
