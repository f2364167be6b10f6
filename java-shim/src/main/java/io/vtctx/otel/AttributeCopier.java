package io.vtctx.otel;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.sdk.trace.ReadableSpan;
import io.vtctx.internal.AttributeWriter;
import io.vtctx.internal.ThreadRecord;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * Copies configured span attributes into one thread's record, and remembers what it put there so
 * that a span change writes only attributes whose value changes. One per publishing thread (kept in
 * its {@link ThreadRecord}), used only by that thread.
 *
 * <p>The values, decided at every change of the current span (makeCurrent of another span, and a
 * scope closed back to another span), for each configured key:
 *
 * <ol>
 *   <li>the current span's own value;
 *   <li>else the value its parent span had, if that parent is the span that was current on this
 *       thread when the child was made current; so child spans of a server span keep its
 *       http.route;
 *   <li>else none: the entry is removed. A context without a valid span has no attributes.
 * </ol>
 *
 * <p>When values are read: a span's own values when it is made current; its parent's values again
 * at that moment (a value set after the parent was made current, as http.route typically is, is
 * picked up by the parent's next child and kept when the child's scope closes back to the parent).
 * A scope closing back to the span current when it was opened restores that span's values without
 * reading: they are what its child inherited (or, if the span left was not its child, its own
 * values are read again). Reads are {@link ReadableSpan#getAttribute}, which takes the span's lock
 * (~40 ns on the project's VM): a changed span costs two reads per configured key when it is made
 * current (its own and its parent's), none when its scope closes back to its parent.
 *
 * <p>Only string attributes are copied (AttributeKey.stringKey); values are read from SDK spans
 * ({@link ReadableSpan#getAttribute}), other spans have none of their own.
 *
 * <p>Arrays of values are never modified once stored in a field: scopes keep references to them (to
 * restore a parent's inherited values at close), so a change makes a new array. In the common case
 * (a child that inherits everything, a scope closed back to an unchanged parent) nothing is
 * allocated and nothing written.
 */
final class AttributeCopier implements ThreadRecord.AttributeEdit {
  private CopiedKeys keys;
  // A previous configuration whose entries must go at the next write.
  private CopiedKeys staleKeys;
  // False until this copier wrote every key once: the record may hold anything for them (a new
  // thread's record is empty, but a ThreadAttributes write may have happened).
  private boolean known;
  // Per key: what the record holds (null: no entry); null array: no entry for any key.
  private String[] values;
  // The span `values` were decided for (null: none), and the part of them it inherited.
  private Span span;
  private String[] inherited;
  // The span whose values `inherited` are (the parent, read when `span` was made current), or null
  // if they came from elsewhere (a closing scope, or nothing).
  private Span inheritedFrom;
  // Decided by prepare(), written by apply().
  private String[] pending;
  // Per-thread scratch for merge(), never stored (it may keep a few value strings reachable).
  private String[] scratch;

  private AttributeCopier(CopiedKeys keys) {
    this.keys = keys;
    this.scratch = new String[keys.size()];
  }

  /** The copier of {@code record}, made for {@code keys} (created or reconfigured if needed). */
  static AttributeCopier of(ThreadRecord record, CopiedKeys keys) {
    AttributeCopier c = SpanPublisher.copierOf(record);
    if (c == null) {
      c = new AttributeCopier(keys);
      record.attributeOwner(c);
    } else if (c.keys != keys) {
      c.staleKeys = c.keys;
      c.keys = keys;
      c.known = false;
      c.values = null;
      c.span = null;
      c.inherited = null;
      c.inheritedFrom = null;
      c.scratch = new String[keys.size()];
    }
    return c;
  }

  /** The span the record's attributes were decided for (for a scope to restore at close). */
  Span span() {
    return span;
  }

  /** The values that span inherited (for a scope to restore at close). */
  String[] inherited() {
    return inherited;
  }

  /**
   * Decides the attributes for {@code current} (whose SpanContext is {@code context}) and returns
   * true if the record must be written. {@code restoreSpan}/{@code restoreInherited} come from a
   * closing scope: the span that was current when it was opened, and what that span had inherited.
   */
  boolean prepare(Span current, SpanContext context, Span restoreSpan, String[] restoreInherited) {
    String[] base;
    String[] next;
    Span from = null;
    if (!context.isValid()) {
      current = null;
      base = null;
      next = null;
    } else if (restoreSpan != null && restoreSpan == current) {
      // Back to the span that was current when the closing scope opened: its inheritance is what
      // it had then. If the span being left inherited from it, what it inherited IS this span's
      // values, read when the child was made current: nothing to read (reads take a lock).
      base = restoreInherited;
      next = inheritedFrom == current ? inherited : merge(current, base, values);
    } else if (span != null && isChildOf(current, span.getSpanContext())) {
      base = merge(span, inherited, values); // the parent's values, read again
      next = merge(current, base, values);
      from = span;
    } else {
      base = null;
      next = merge(current, null, values);
    }
    pending = next;
    span = current;
    inherited = base;
    inheritedFrom = from;
    if (known && staleKeys == null && sameValues(pending, values)) return false;
    for (int k = 0; k < keys.size(); k++) keys.index(k); // register keys before the rewrite
    return true;
  }

  /** Writes what {@link #prepare} decided; called inside the record's rewrite (valid=0). */
  @Override
  public void apply(ByteBuffer record) {
    if (staleKeys != null) {
      for (int k = 0; k < staleKeys.size(); k++) {
        int index = staleKeys.index(k);
        if (index >= 0) AttributeWriter.remove(record, index);
      }
    }
    for (int k = 0; k < keys.size(); k++) {
      String value = at(pending, k);
      if (known && staleKeys == null && Objects.equals(value, at(values, k))) continue;
      int index = keys.index(k);
      if (index < 0) continue; // refused by the agent (255 keys): never written
      if (value == null) {
        AttributeWriter.remove(record, index);
      } else {
        AttributeWriter.put(record, index, value);
      }
    }
    values = pending;
    known = true;
    staleKeys = null;
  }

  private static boolean isChildOf(Span child, SpanContext parent) {
    if (!(child instanceof ReadableSpan readable)) return false;
    SpanContext p = readable.getParentSpanContext();
    return p == parent
        || (p.getSpanId().equals(parent.getSpanId()) && p.getTraceId().equals(parent.getTraceId()));
  }

  /**
   * For each key, {@code s}'s own value, else {@code base}'s. Returns {@code likely} or {@code
   * base} if the result equals one of them (no allocation), else a new array.
   */
  private String[] merge(Span s, String[] base, String[] likely) {
    ReadableSpan readable = s instanceof ReadableSpan r ? r : null;
    int n = keys.size();
    boolean isLikely = true;
    boolean isBase = true;
    for (int k = 0; k < n; k++) {
      String own = readable != null ? readable.getAttribute(keys.key(k)) : null;
      String v = own != null ? own : at(base, k);
      scratch[k] = v;
      isLikely &= Objects.equals(v, at(likely, k));
      isBase &= Objects.equals(v, at(base, k));
    }
    if (isLikely) return likely;
    return isBase ? base : scratch.clone();
  }

  private static boolean sameValues(String[] a, String[] b) {
    if (a == b) return true;
    int n = Math.max(a != null ? a.length : 0, b != null ? b.length : 0);
    for (int k = 0; k < n; k++) {
      if (!Objects.equals(at(a, k), at(b, k))) return false;
    }
    return true;
  }

  private static String at(String[] values, int k) {
    return values != null ? values[k] : null;
  }
}
