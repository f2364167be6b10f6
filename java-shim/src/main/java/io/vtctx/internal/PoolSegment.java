package io.vtctx.internal;

import java.lang.System.Logger.Level;
import java.lang.invoke.VarHandle;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

/**
 * Writes a record's ids with the protocol of {@link RecordWriter} (valid=0, fence, ids, valid=1
 * released), through one MemorySegment over the start of the agent's record pool ({@link
 * AgentNatives#recordPoolWindow}) instead of the thread's own view.
 *
 * <p>Why: an access through a thread's direct ByteBuffer loads and checks the buffer's state
 * (address, limit, read-only, session) again after every fence of the protocol, and each check
 * adds an uncommon trap: the publish path then compiles too big for C2 to inline it into a scope's
 * attach and close. A segment in a static final field is a constant to C2, which folds its base,
 * size and liveness; masking the record's offset with a constant ({@code MASK}) proves every
 * access in bounds and aligned. A write compiles to the bare stores, as with raw memory access.
 *
 * <p>The segment API is final from Java 22, and the shim is Java 21 bytecode: the API is reached
 * reflectively, once, and the segment is held as an Object (the VarHandles' MemorySegment
 * coordinate erases to Object, so the calls still link directly). On Java 21, with {@code
 * -Dio.vtctx.poolSegment=false}, or for a record beyond the window (more than 2^30 bytes of
 * records in use), records are written through their views.
 *
 * <p>Safety: {@link #offsetOf} gives an offset only for an address in the window at a multiple of
 * 64 (every record is 64-byte aligned), which the mask leaves unchanged, so masking never moves a
 * write. Only a record's own thread writes it, through its own {@link ThreadRecord}.
 */
final class PoolSegment {
  private static final System.Logger LOG = System.getLogger("io.vtctx");

  // All null/0 when unavailable: offsetOf then returns -1 and nothing else is called.
  private static final Object SEGMENT; // a java.lang.foreign.MemorySegment
  private static final long BASE; // address of the window's first byte
  private static final long MASK; // window size - 64: clears no bit of a record's offset
  private static final VarHandle IDS; // big-endian long at (segment, offset)
  private static final VarHandle VALID_AND_FLAGS; // little-endian short at (segment, offset)

  static {
    Object segment = null;
    long base = 0;
    long mask = 0;
    VarHandle ids = null;
    VarHandle validAndFlags = null;
    String off = unavailableReason();
    if (off == null) {
      try {
        ByteBuffer window = AgentNatives.recordPoolWindow();
        if (window == null) throw new IllegalStateException("the agent gave no pool window");
        Class<?> segmentClass = Class.forName("java.lang.foreign.MemorySegment");
        segment = segmentClass.getMethod("ofBuffer", Buffer.class).invoke(null, window);
        base = (long) segmentClass.getMethod("address").invoke(segment);
        long size = (long) segmentClass.getMethod("byteSize").invoke(segment);
        if (Long.bitCount(size) != 1 || size < 64 || (base & 63) != 0) {
          throw new IllegalStateException("unexpected pool window: " + size + " bytes at " + base);
        }
        mask = size - 64;
        ids = layoutHandle("JAVA_LONG", "OfLong", ByteOrder.BIG_ENDIAN, segmentClass);
        validAndFlags =
            layoutHandle("JAVA_SHORT", "OfShort", ByteOrder.LITTLE_ENDIAN, segmentClass);
      } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
        segment = null;
        LOG.log(
            Level.WARNING,
            "vtctx: record writes take the slower per-thread path: pool segment unavailable",
            e);
      }
    } else {
      LOG.log(Level.DEBUG, "vtctx: record writes take the per-thread path: {0}", off);
    }
    SEGMENT = segment;
    BASE = base;
    MASK = mask;
    IDS = ids;
    VALID_AND_FLAGS = validAndFlags;
  }

  private PoolSegment() {}

  private static String unavailableReason() {
    if (!Boolean.parseBoolean(System.getProperty("io.vtctx.poolSegment", "true"))) {
      return "-Dio.vtctx.poolSegment=false";
    }
    if (Runtime.version().feature() < 22) return "Java " + Runtime.version().feature() + " < 22";
    return null;
  }

  // ValueLayout.<field>.withOrder(order).varHandle(): coordinates (MemorySegment, long offset).
  private static VarHandle layoutHandle(
      String field, String layoutClass, ByteOrder order, Class<?> segmentClass)
      throws ReflectiveOperationException {
    Class<?> valueLayout = Class.forName("java.lang.foreign.ValueLayout");
    Class<?> typed = Class.forName("java.lang.foreign.ValueLayout$" + layoutClass);
    Object layout = valueLayout.getField(field).get(null);
    layout = typed.getMethod("withOrder", ByteOrder.class).invoke(layout, order);
    VarHandle handle = (VarHandle) valueLayout.getMethod("varHandle").invoke(layout);
    if (!handle.coordinateTypes().equals(List.of(segmentClass, long.class))) {
      throw new IllegalStateException("unexpected coordinates " + handle.coordinateTypes());
    }
    return handle;
  }

  /** True if records are written through the pool segment (as far as they lie in it). */
  static boolean available() {
    return SEGMENT != null;
  }

  /**
   * The offset of the record at {@code address} in the pool segment, or -1 if it is to be written
   * through its view (segment unavailable, or the record lies beyond it).
   */
  static long offsetOf(long address) {
    long offset = address - BASE;
    return SEGMENT != null && offset >= 0 && offset <= MASK && (offset & 63) == 0 ? offset : -1;
  }

  /**
   * Publishes ids and flags into the record at {@code offset} (from {@link #offsetOf}, the caller's
   * own record); the trace-id words only if {@code traceId} (else the record holds them already).
   */
  static void write(
      long offset, boolean traceId, long traceHigh, long traceLow, long span, int flags) {
    long at = offset & MASK; // == offset; lets C2 prove every access in bounds and aligned
    VALID_AND_FLAGS.setOpaque(SEGMENT, at + RecordWriter.VALID, (short) 0);
    VarHandle.storeStoreFence(); // valid=0 lands before any payload byte
    if (traceId) {
      IDS.set(SEGMENT, at + RecordWriter.TRACE_ID, traceHigh);
      IDS.set(SEGMENT, at + RecordWriter.TRACE_ID + 8, traceLow);
    }
    IDS.set(SEGMENT, at + RecordWriter.SPAN_ID, span);
    VALID_AND_FLAGS.setRelease( // payload before valid=1
        SEGMENT, at + RecordWriter.VALID, RecordWriter.validAndFlags(flags));
  }

  /** {@link RecordWriter#clear} for the record at {@code offset}: valid=0, then the ids zeroed. */
  static void clear(long offset) {
    long at = offset & MASK;
    VALID_AND_FLAGS.setOpaque(SEGMENT, at + RecordWriter.VALID, (short) 0);
    VarHandle.storeStoreFence(); // no reader may see zeroed ids with valid=1
    IDS.set(SEGMENT, at + RecordWriter.TRACE_ID, 0L);
    IDS.set(SEGMENT, at + RecordWriter.TRACE_ID + 8, 0L);
    IDS.set(SEGMENT, at + RecordWriter.SPAN_ID, 0L);
  }
}
