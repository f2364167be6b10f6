package io.vtctx.otel;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.context.Context;
import io.vtctx.internal.IdCache;
import io.vtctx.internal.ThreadRecord;

/**
 * Makes a thread's record hold the span of a context, or no context, and the configured span
 * attributes ({@link AttributeCopier}).
 *
 * <p>The SpanContext object is the key: an SDK span returns the same one every time, and every
 * context without a span maps to the one invalid SpanContext. So a context change that keeps the
 * span costs one compare (attributes are not read again either), and a scope that closes back to
 * its parent decodes nothing (the {@link IdCache} remembers the last two).
 */
final class SpanPublisher {
  // OpenTelemetry's own SpanContext class: a valid one has ids that OpenTelemetry generated as hex
  // (its RandomIdGenerator: the only case in which it skips validation) or validated as lowercase
  // hex, so IdCache may decode them without checking each digit.
  private static final Class<?> OTEL_SPAN_CONTEXT =
      SpanContext.create(
              "0af7651916cd43dd8448eb211c80319c",
              "b7ad6b7169203331",
              TraceFlags.getDefault(),
              TraceState.getDefault())
          .getClass();

  // Resolving the class constant loads AttributeCopier now. C2 does not inline a call whose
  // signature names a class that is not loaded yet (copierOf's, on every attach), and nothing
  // else loads it while no attributes are copied.
  private static final Class<?> COPIER_LOADED = AttributeCopier.class;

  private SpanPublisher() {}

  /**
   * Publishes the span of {@code context} (null = none) into {@code record}, the caller's own.
   * {@code restoreSpan} and {@code restoreInherited}: see {@link AttributeCopier#prepare} (null
   * when a context is attached).
   */
  static void publish(
      ThreadRecord record, Context context, Span restoreSpan, String[] restoreInherited) {
    Span span = context != null ? Span.fromContextOrNull(context) : null;
    SpanContext spanContext = span != null ? span.getSpanContext() : null;
    if (spanContext == null) spanContext = SpanContext.getInvalid();
    if (record.holds(spanContext)) return;
    CopiedKeys keys = RecordAttributeConfig.keys();
    AttributeCopier copier =
        keys.size() == 0 && copierOf(record) == null ? null : AttributeCopier.of(record, keys);
    if (copier != null && copier.prepare(span, spanContext, restoreSpan, restoreInherited)) {
      publish(record, spanContext, copier);
    } else {
      publish(record, spanContext, null); // no attribute to change
    }
  }

  /** The SpanContext of the span in {@code context}; the invalid one without a span or context. */
  static SpanContext spanContextOf(Context context) {
    Span span = context != null ? Span.fromContextOrNull(context) : null;
    SpanContext spanContext = span != null ? span.getSpanContext() : null;
    return spanContext != null ? spanContext : SpanContext.getInvalid();
  }

  /**
   * True while no span attributes are copied into {@code record} (none configured, none left in it
   * by the copier): {@link #publish} then writes the ids only, which {@link #publish(ThreadRecord,
   * SpanContext, ThreadRecord.AttributeEdit) publish(record, spanContext, null)} does in fewer
   * steps.
   */
  static boolean copiesNoAttributes(ThreadRecord record) {
    return record.attributeOwner() == null && RecordAttributeConfig.keys().size() == 0;
  }

  /** The copier's state to hand to a scope opened now (null if attributes are not copied). */
  static AttributeCopier copierOf(ThreadRecord record) {
    // Only AttributeCopier.of makes an edit the owner of a record's attributes.
    return (AttributeCopier) record.attributeOwner();
  }

  /**
   * Publishes {@code spanContext} (from {@link #spanContextOf}) into {@code record}, the caller's
   * own, with {@code edit}'s attribute changes in the same rewrite (null: none; {@link #publish}
   * without attributes when {@link #copiesNoAttributes}): the ids from the thread's cache (a known
   * span), else decoded; a context without valid (hex) ids leaves the record without context.
   */
  static void publish(
      ThreadRecord record, SpanContext spanContext, ThreadRecord.AttributeEdit edit) {
    IdCache.Ids ids = record.ids().select(spanContext); // only valid contexts are cached
    if (ids != null) {
      record.publish(spanContext, ids, edit);
    } else {
      publishUncached(record, spanContext, edit);
    }
  }

  // publish for ids the cache does not have, a call of its own so that publish stays small enough
  // for C2 to inline into every attach and close (see VtctxContextStorage.publish): decodes them,
  // or leaves the record without context for a context without valid (hex) ids.
  private static void publishUncached(
      ThreadRecord record, SpanContext spanContext, ThreadRecord.AttributeEdit edit) {
    IdCache.Ids ids = spanContext.isValid() ? load(record, spanContext) : null; // null: not hex
    record.publish(spanContext, ids, edit);
  }

  /**
   * Decodes the ids of a valid {@code spanContext} into the thread's cache; null if they are not
   * hex (a foreign SpanContext implementation: publish nothing rather than wrong data). A span of
   * the trace of a cached one has the same trace-id String (an SDK span shares its parent's), so
   * only its span-id is decoded.
   */
  private static IdCache.Ids load(ThreadRecord record, SpanContext spanContext) {
    String traceId = spanContext.getTraceId();
    IdCache cache = record.ids();
    IdCache.Ids sameTrace = withTrace(cache.recent(), traceId);
    if (sameTrace == null) sameTrace = withTrace(cache.older(), traceId);
    return record.loadIds(
        spanContext,
        traceId,
        spanContext.getSpanId(),
        spanContext.getTraceFlags().asByte(),
        spanContext.getClass() == OTEL_SPAN_CONTEXT,
        sameTrace);
  }

  // entry if its key is a SpanContext with this very trace-id String (so the same digits), else
  // null.
  private static IdCache.Ids withTrace(IdCache.Ids entry, String traceId) {
    return entry.key() instanceof SpanContext cached && cached.getTraceId() == traceId
        ? entry
        : null;
  }
}
