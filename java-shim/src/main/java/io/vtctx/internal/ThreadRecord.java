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
  // The edit that last wrote this record's attributes and remembers what it put there (the
  // OpenTelemetry storage's copier); dropped by every other attribute write, so that it never
  // trusts a stale memory.
  private AttributeEdit attributeOwner;

  private ThreadRecord(ByteBuffer view) {
    this.view = view;
  }

  /** A record object over {@code view}, not cached for any thread: for tests of the write path. */
  static ThreadRecord over(ByteBuffer view) {
    return new ThreadRecord(view);
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

  /** Changes attributes inside a rewrite that {@link ThreadRecord} runs (payload stores only). */
  public interface AttributeEdit {
    void apply(ByteBuffer record);
  }

  /**
   * Publishes these ids and flags, unless the record already holds exactly them; all-zero ids
   * (W3C: invalid) leave it without context (valid=0, ids zero). Holds no source afterwards.
   */
  public void publish(long traceHigh, long traceLow, long span, int flags) {
    write(traceHigh, traceLow, span, flags, null);
    holdOther(null);
  }

  /**
   * Publishes the context of {@code source}: {@code ids}, an entry of this thread's {@link #ids()}
   * cache loaded under {@code source}, or no context (valid=0) if {@code ids} is null or all zero.
   * With an {@code edit}, the attributes change in the same rewrite (valid=0, ids, attributes,
   * valid=1), so a reader never sees the new span with the old span's attributes or the reverse;
   * without one, nothing is written if the record holds these ids already. Afterwards {@link
   * #holds(Object) holds(source)} is true.
   */
  public void publish(Object source, IdCache.Ids ids, AttributeEdit edit) {
    if (ids == null) {
      write(0L, 0L, 0L, 0, edit);
      holdOther(source);
      return;
    }
    int slot = ids.slot();
    if (held == slot && edit == null) return; // the same entry, so the same source and ids
    write(ids.traceHigh(), ids.traceLow(), ids.span(), ids.flags(), edit);
    held = slot;
  }

  // The one write path. Stores only what differs from what this object last wrote (exact, see
  // writtenState): a span change inside a trace, the common one, stores the span-id between
  // valid=0 and valid=1 (three stores instead of five). Without an edit, an unchanged publish or
  // clear stores nothing.
  private void write(long traceHigh, long traceLow, long span, int flags, AttributeEdit edit) {
    if ((traceHigh | traceLow) == 0 || span == 0) { // W3C: all-zero ids are invalid
      if (writtenState == CLEARED && edit == null) return;
      RecordWriter.clear(view); // valid=0, ids zero; stays valid=0
      if (edit != null) edit.apply(view);
      written(0L, 0L, 0L, CLEARED);
      return;
    }
    flags &= 0xff;
    // Ids are never zero here, so an equal trace-id was written by a publish and is still there.
    boolean sameTrace = writtenHigh == traceHigh && writtenLow == traceLow;
    if (sameTrace && writtenSpan == span && writtenState == flags && edit == null) return;
    RecordWriter.begin(view);
    if (!sameTrace) RecordWriter.putTraceId(view, traceHigh, traceLow);
    RecordWriter.putSpanId(view, span);
    if (edit != null) edit.apply(view);
    RecordWriter.end(view, flags);
    written(traceHigh, traceLow, span, flags);
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
    attributeOwner = null;
    if (AttributeKeys.isKnown(key)) return AttributeWriter.set(view, key, value);
    if (key < 0) return -1;
    int stored = AgentNatives.setAttribute(key, value);
    if (stored >= 0) AttributeKeys.noteRegistered(key);
    return stored;
  }

  /**
   * The edit that last wrote this record's attributes through {@link #publish(Object, IdCache.Ids,
   * AttributeEdit)} and was made their owner, or null: none, or another attribute write since.
   */
  public AttributeEdit attributeOwner() {
    return attributeOwner;
  }

  /** Makes {@code edit} the owner of this record's attributes (see {@link #attributeOwner()}). */
  public void attributeOwner(AttributeEdit edit) {
    attributeOwner = edit;
  }

  /** This thread's id cache (created at first use: the plain API does not need it). */
  public IdCache ids() {
    IdCache c = ids;
    return c != null ? c : (ids = new IdCache());
  }

  /**
   * {@link IdCache#load} into this thread's cache, for a publish: if the load replaces the entry
   * the record holds, the record no longer holds that entry's source.
   */
  public IdCache.Ids loadIds(
      Object key,
      String traceHex,
      String spanHex,
      int flags,
      boolean hexDigits,
      IdCache.Ids sameTrace) {
    IdCache.Ids loaded = ids().load(key, traceHex, spanHex, flags, hexDigits, sameTrace);
    if (loaded != null && held == loaded.slot()) holdOther(null); // its key and ids changed
    return loaded;
  }
}
