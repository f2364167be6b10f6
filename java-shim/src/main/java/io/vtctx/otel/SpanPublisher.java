package io.vtctx.otel;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.context.Context;
import io.vtctx.internal.IdCache;
import io.vtctx.internal.ThreadRecord;

/**
 * Makes a thread's record hold the span of a context, or no context.
 *
 * <p>The SpanContext object is the key: an SDK span returns the same one every time, and every
 * context without a span maps to the one invalid SpanContext. So a context change that keeps the
 * span costs one compare, and a scope that closes back to its parent decodes nothing (the {@link
 * IdCache} remembers the last two).
 */
final class SpanPublisher {
  private SpanPublisher() {}

  /** Publishes the span of {@code context} (null = none) into {@code record}, the caller's own. */
  static void publish(ThreadRecord record, Context context) {
    SpanContext spanContext = spanContextOf(context);
    if (!record.holds(spanContext)) publishChanged(record, spanContext);
  }

  private static SpanContext spanContextOf(Context context) {
    Span span = context != null ? Span.fromContextOrNull(context) : null;
    SpanContext spanContext = span != null ? span.getSpanContext() : null;
    return spanContext != null ? spanContext : SpanContext.getInvalid();
  }

  private static void publishChanged(ThreadRecord record, SpanContext spanContext) {
    if (!spanContext.isValid()) {
      record.clear(spanContext); // no valid span: valid=0
      return;
    }
    IdCache ids = record.ids();
    if (!ids.select(spanContext)
        && !ids.load(
            spanContext,
            spanContext.getTraceId(),
            spanContext.getSpanId(),
            spanContext.getTraceFlags().asByte())) {
      // Not hex: a foreign SpanContext implementation. Publish nothing rather than wrong data.
      record.clear(spanContext);
      return;
    }
    record.publish(ids.traceHigh(), ids.traceLow(), ids.span(), ids.flags(), spanContext);
  }
}
