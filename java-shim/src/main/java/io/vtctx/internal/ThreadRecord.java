package io.vtctx.internal;

import java.nio.ByteBuffer;

/**
 * The calling thread's record, as a direct view cached in a {@link ThreadLocal}, plus the thread's
 * {@link IdCache}.
 *
 * <p>Lifetime: the agent binds one record to each thread (virtual or platform) for the thread's
 * whole life and recycles it after the thread ends. The view is reachable only through this
 * thread's ThreadLocal, so only this thread ever writes through it, and only while it runs: it
 * can never write into a record that has been handed to another thread. (An inheritable thread
 * local would break that; this one is not.) The view is garbage together with its thread.
 *
 * <p>Cost: the first publish on a thread takes one JNI call (the agent binds a record if the
 * thread has none yet, e.g. after a late attach) and about 150 bytes of heap (map entry, this
 * object, the buffer object, the id cache), which is what it costs to have huge numbers of
 * virtual threads that publish. Threads that never publish pay nothing.
 */
public final class ThreadRecord {
  private static final ThreadLocal<ThreadRecord> CURRENT = new ThreadLocal<>();
  // Cached for a thread the agent could give no record (its pool is exhausted): publishes nothing.
  private static final ThreadRecord NONE = new ThreadRecord(null);

  private final ByteBuffer view;
  private IdCache ids;

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

  private static ThreadRecord bind() {
    ByteBuffer view = AgentNatives.currentRecordBuffer();
    // Records are 64-byte aligned; the check keeps a wrong address from becoming an exception
    // in the aligned accesses of RecordWriter.
    ThreadRecord r =
        view != null && view.capacity() >= 28 && view.alignmentOffset(0, 8) == 0
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
    if ((traceHigh | traceLow) == 0 || span == 0) { // W3C: all-zero ids are invalid
      clear();
    } else if (!RecordWriter.holds(view, traceHigh, traceLow, span, flags)) {
      RecordWriter.write(view, traceHigh, traceLow, span, flags);
    }
  }

  /** Leaves the record without context (valid=0), unless it already is. */
  public void clear() {
    if (!RecordWriter.isClear(view)) RecordWriter.clear(view);
  }

  /** This thread's id cache (created at first use: the plain API does not need it). */
  public IdCache ids() {
    IdCache c = ids;
    return c != null ? c : (ids = new IdCache());
  }
}
