package io.vtctx.internal;

import java.nio.ByteBuffer;

/**
 * The calling thread's record, as a direct view over it cached in a {@link ThreadLocal}, plus the
 * thread's {@link IdCache}.
 *
 * <p>Lifetime: the agent binds one record to each thread (virtual or platform) for the thread's
 * whole life and recycles it after the thread ends. The view covers that record only
 * (record_size bytes, committed and never unmapped) and is reachable only through this thread's
 * ThreadLocal, so only this thread ever writes through it, and only while it runs: it can never
 * write into a record that has been handed to another thread. (An inheritable thread local would
 * break that; this one is not.) Both are garbage with the thread.
 *
 * <p>Cost: the first publish on a thread takes one JNI call (currentRecordBuffer: the agent binds a
 * record if the thread has none yet, e.g. after a late attach, checks its caller and makes the
 * direct buffer) and about 200 bytes of heap (map entry, this object, the view, the id cache),
 * which is what huge numbers of publishing virtual threads cost. Threads that never publish pay
 * nothing.
 */
public final class ThreadRecord {
  private static final ThreadLocal<ThreadRecord> CURRENT = new ThreadLocal<>();
  // Cached for a thread the agent could give no record (its pool is exhausted): publishes nothing.
  private static final ThreadRecord NONE = new ThreadRecord(null);

  private final ByteBuffer view;
  private IdCache ids;
  // What a publisher last made the record hold, so that it can skip an unchanged source (an
  // OpenTelemetry SpanContext) with one compare: the slot (0, 1) of the id cache entry it came
  // from (the source is that entry's key), or OTHER (the source is otherSource, null = none). Ints,
  // not a reference to the source: with G1, storing a reference into this long-lived object costs
  // a StoreLoad fence, on every span change. Exact as long as this shim is the record's only writer
  // while the thread lives (the agent writes a record only before its thread starts and after it
  // ends); a load into the held entry resets it (loadIds).
  private int held = OTHER;
  private Object otherSource; // written only when it changes
  private static final int OTHER = -1;
  // What this object last wrote to the record's ids, flags and valid byte, so that an unchanged
  // publish or clear costs no read of the record: flags (0-255) after valid ids, CLEARED after a
  // clear, UNKNOWN before the first write. Exact for the same reason as `held`; attribute writes
  // (Java's AttributeWriter and the agent's setAttribute) keep the ids and valid byte as they are.
  private long writtenHigh;
  private long writtenLow;
  private long writtenSpan;
  private int writtenState = UNKNOWN;
  private static final int CLEARED = -1;
  private static final int UNKNOWN = -2;
  // What a publisher of attributes (the OpenTelemetry storage) remembers about the attributes it
  // put in this record; dropped by every other attribute write, so it never trusts a stale memory.
  private Object attributeMemo;

  private ThreadRecord(ByteBuffer view) {
    this.view = view;
  }

  /** The calling thread's record, or null if there is none (agent absent, or no record). */
  public static ThreadRecord current() {
    if (!AgentLink.active()) return null;
    ThreadRecord r = CURRENT.get();
    if (r == null) r = bind();
    return r.view != null ? r : null;
  }

  /**
   * The native address of the calling thread's record (binding one if needed), or 0 without the
   * agent or a record.
   */
  public static long currentAddress() {
    // The thread's view first: while it is cached here the record stays this thread's (without
    // JVMTI end events, channel=identity, the agent takes a collected view as the thread's end).
    return current() != null ? AgentNatives.currentRecord() : 0;
  }

  private static ThreadRecord bind() {
    // The agent binds a record now if the thread has none yet (e.g. it predates a late attach).
    ByteBuffer view = AgentNatives.currentRecordBuffer();
    // Records are 64-byte aligned and at least 64 bytes; the check keeps anything else from
    // becoming an exception in the aligned accesses of RecordWriter.
    ThreadRecord r =
        view != null && view.capacity() >= 64 && view.alignmentOffset(0, 8) == 0
            ? new ThreadRecord(view)
            : NONE;
    try {
      CURRENT.set(r);
    } catch (UnsupportedOperationException e) {
      // A thread that does not support thread locals (JDK-internal): not cached, still usable.
    }
    return r;
  }

  /** Publishes these ids and flags unless the record already holds exactly them. */
  public void publish(long traceHigh, long traceLow, long span, int flags) {
    write(traceHigh, traceLow, span, flags);
    holdOther(null); // no source: holds() is false until the next publish from one
  }

  /**
   * Publishes the ids of {@code entry}, an entry of this thread's {@link #ids()} cache, unless the
   * record already holds them; afterwards {@link #holds(Object) holds(entry.key())} is true.
   */
  public void publish(IdCache.Ids entry) {
    int slot = entry.slot();
    if (held == slot) return; // the same entry, so the same source and ids
    write(entry.traceHigh(), entry.traceLow(), entry.span(), entry.flags());
    held = slot;
  }

  // Writes these ids and flags unless the record holds exactly them (all-zero ids clear it).
  private void write(long traceHigh, long traceLow, long span, int flags) {
    if ((traceHigh | traceLow) == 0 || span == 0) { // W3C: all-zero ids are invalid
      writeClear();
      return;
    }
    flags &= 0xff;
    // Ids are never zero here, so an equal trace-id was written by a publish and is still there.
    boolean sameTrace = writtenHigh == traceHigh && writtenLow == traceLow;
    if (!sameTrace || writtenSpan != span || writtenState != flags) {
      // Only the words that change are stored: a span change inside a trace, the common one,
      // stores the span-id between valid=0 and valid=1 (three stores instead of five).
      RecordWriter.begin(view);
      if (!sameTrace) RecordWriter.putTraceId(view, traceHigh, traceLow);
      RecordWriter.putSpanId(view, span);
      RecordWriter.end(view, flags);
      written(traceHigh, traceLow, span, flags);
    }
  }

  private void holdOther(Object source) {
    held = OTHER;
    if (otherSource != source) otherSource = source; // often the same (e.g. the invalid span)
  }

  private void written(long traceHigh, long traceLow, long span, int state) {
    writtenHigh = traceHigh;
    writtenLow = traceLow;
    writtenSpan = span;
    writtenState = state;
  }

  /** Changes attributes inside a rewrite that {@link ThreadRecord} runs (payload stores only). */
  public interface AttributeEdit {
    void apply(ByteBuffer record);
  }

  /**
   * Publishes these ids and flags and applies {@code edit} to the attributes, all in ONE in-place
   * rewrite (valid=0, ids, attributes, valid=1), so a reader never sees the new span with the old
   * span's attributes or the reverse. Always writes. All-zero ids clear instead (the edit still
   * applies).
   */
  public void publish(IdCache.Ids entry, AttributeEdit edit) {
    long traceHigh = entry.traceHigh();
    long traceLow = entry.traceLow();
    long span = entry.span();
    if ((traceHigh | traceLow) == 0 || span == 0) {
      clear(entry.key(), edit);
      return;
    }
    RecordWriter.begin(view);
    RecordWriter.putIds(view, traceHigh, traceLow, span);
    edit.apply(view);
    RecordWriter.end(view, entry.flags());
    written(traceHigh, traceLow, span, entry.flags() & 0xff);
    held = entry.slot();
  }

  /** Leaves the record without context (valid=0, ids zero) and applies {@code edit}, in one go. */
  public void clear(Object source, AttributeEdit edit) {
    RecordWriter.begin(view);
    RecordWriter.putIds(view, 0L, 0L, 0L);
    edit.apply(view);
    written(0L, 0L, 0L, CLEARED);
    holdOther(source);
  }

  /** Leaves the record without context (valid=0), unless it already is. */
  public void clear() {
    clear(null);
  }

  /** Like {@link #clear()}, for a source that has no valid context. */
  public void clear(Object source) {
    writeClear();
    holdOther(source);
  }

  private void writeClear() {
    if (writtenState != CLEARED) {
      RecordWriter.clear(view);
      written(0L, 0L, 0L, CLEARED);
    }
  }

  /** True if the last publish or clear was for this same (non-null) source object. */
  public boolean holds(Object source) {
    int h = held;
    Object current = h == OTHER ? otherSource : ids.entry(h).key();
    return source == current && source != null;
  }

  /**
   * Sets ({@code value} non-null) or removes ({@code null}) attribute {@code key} of this record,
   * with the semantics of {@code AgentNatives.setAttribute}: the UTF-8 bytes stored, 0 for a
   * removal, or -1 (index not registered, no room). Indexes the agent confirmed to this process are
   * written from Java ({@link AttributeWriter}); any other index is left to the agent's native,
   * which checks it.
   */
  public int setAttribute(int key, String value) {
    attributeMemo = null;
    if (AttributeKeys.isKnown(key)) return AttributeWriter.set(view, key, value);
    if (key < 0) return -1;
    int stored = AgentNatives.setAttribute(key, value);
    if (stored >= 0) AttributeKeys.noteRegistered(key);
    return stored;
  }

  /** What the attribute publisher last stored here (null: nothing, or another write since). */
  public Object attributeMemo() {
    return attributeMemo;
  }

  public void attributeMemo(Object memo) {
    attributeMemo = memo;
  }

  /** This thread's id cache (created at first use: the plain API does not need it). */
  public IdCache ids() {
    IdCache c = ids;
    return c != null ? c : (ids = new IdCache());
  }

  /**
   * {@link IdCache#load} into this thread's cache: use this, not the cache's own load, whenever
   * the record may hold an entry of the cache (the load replaces one).
   */
  public IdCache.Ids loadIds(
      Object key,
      String traceHex,
      String spanHex,
      int flags,
      boolean hexDigits,
      IdCache.Ids sameTrace) {
    IdCache c = ids();
    if (held == c.older().slot()) holdOther(null); // its key and ids are about to change
    return c.load(key, traceHex, spanHex, flags, hexDigits, sameTrace);
  }
}
