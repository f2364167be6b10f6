package io.vtctx.otel;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.context.Context;
import io.vtctx.internal.IdCache;
import io.vtctx.internal.ThreadRecord;

/** Makes the calling thread's record hold the span of a context (or no context). */
final class SpanPublisher {
  private SpanPublisher() {}

  /** Publishes the span of {@code context} (null = none) into the calling thread's record. */
  static void publish(Context context) {
    ThreadRecord record = ThreadRecord.current();
    if (record == null) return;
    Span span = context != null ? Span.fromContextOrNull(context) : null;
    SpanContext spanContext = span != null ? span.getSpanContext() : null;
    if (spanContext == null || !spanContext.isValid()) {
      record.clear(); // no valid span: valid=0
      return;
    }
    // The SpanContext object is the cache key: an SDK span returns the same one every time, so a
    // context change that keeps the span, or a scope closing back to its parent, decodes nothing.
    IdCache ids = record.ids();
    if (!ids.select(spanContext)
        && !ids.load(
            spanContext,
            spanContext.getTraceId(),
            spanContext.getSpanId(),
            spanContext.getTraceFlags().asByte())) {
      record.clear(); // not hex: a foreign SpanContext implementation; publish nothing over wrong
      return;
    }
    record.publish(ids.traceHigh(), ids.traceLow(), ids.span(), ids.flags());
  }
}
