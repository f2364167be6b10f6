package io.vtctx.internal;

import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Makes the per-thread direct view of a record cheaply.
 *
 * <p>A direct ByteBuffer made by JNI (NewDirectByteBuffer) costs ~0.2-0.3 us, which would be paid
 * once by every thread that publishes: too much for virtual threads, which come in huge numbers and
 * often publish only a few times. Instead the agent hands out one buffer per 1 MiB address window
 * of its record pool ({@link AgentNatives#recordWindow}); a thread's view is a slice of its window
 * (a plain Java allocation), bounded to the record, so the thread can never write outside its own
 * record. Windows stay private to this class; the pool never unmaps records, so they stay valid for
 * the life of the process.
 */
final class RecordViews {
  static final int WINDOW_SHIFT = 20; // agent/jniNatives.cpp kRecordWindowShift
  private static final long WINDOW_MASK = (1L << WINDOW_SHIFT) - 1;

  // At most one window per MiB of records in use (16384 default-size records each).
  private static final ConcurrentHashMap<Long, ByteBuffer> windows = new ConcurrentHashMap<>();

  private RecordViews() {}

  /** A view of the {@code size}-byte record at {@code address}, or null if none can be made. */
  static ByteBuffer viewOf(long address, int size) {
    if (address == 0 || size <= 0) return null;
    ByteBuffer window = windows.get(address >>> WINDOW_SHIFT);
    if (window == null) {
      window = AgentNatives.recordWindow(address);
      if (window == null) return null;
      ByteBuffer raced = windows.putIfAbsent(address >>> WINDOW_SHIFT, window);
      if (raced != null) window = raced;
    }
    int offset = (int) (address & WINDOW_MASK);
    if (offset + size > window.capacity()) return null; // the agent's window is not what we assume
    return window.slice(offset, size);
  }
}
