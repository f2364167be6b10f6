package io.vtctx.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The in-place writer of an OTEP 4947 record (the Java twin of tls-publish/recordWriter.h):
 * valid=0, fence, payload, fence, valid=1. Only the thread that owns the record calls it.
 *
 * <p>Why these fences: the readers that matter (eBPF at a perf sample or a syscall) interrupt the
 * writing thread itself and so see its stores in program order; only the JIT could reorder them.
 * {@link VarHandle#storeStoreFence()} keeps valid=0 before the payload and the release store of
 * valid=1 keeps the payload before it; on x86-64 both are compiler barriers that emit no
 * instruction, on aarch64 they also order the stores for the CPU. The opaque store of valid=0 may
 * not be elided or merged with the later valid=1 store to the same bytes.
 *
 * <p>Layout (protocol/include/vtctx/record.h): trace-id at 0 (16 bytes), span-id at 16 (8),
 * valid at 24, trace-flags at 25, attrs-data-size at 26 (attributes: {@link AttributeWriter}, which
 * uses the same protocol). The ids are in W3C (network) byte order, so they are written as
 * big-endian longs. valid and flags are written together as one little-endian short (valid is the
 * low byte at offset 24): the final store publishes the flags and valid=1 at once.
 */
public final class RecordWriter {
  public static final int TRACE_ID = 0;
  public static final int SPAN_ID = 16;
  public static final int VALID = 24;
  public static final int TRACE_FLAGS = 25;

  private static final VarHandle IDS =
      MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
  private static final VarHandle VALID_AND_FLAGS =
      MethodHandles.byteBufferViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);

  static {
    loadJdkSignatureClasses();
  }

  private RecordWriter() {}

  /**
   * Loads (without initializing) the JDK class that the direct-buffer VarHandle accesses name in
   * their signatures. C2 does not inline a call whose signature names a class that is not loaded
   * yet, and nothing else may have loaded this one when the publish path is first compiled; the
   * record stores then stay calls for the life of that compiled code (observed: ~1.5x the cost of
   * a scope change in one JVM of three).
   */
  private static void loadJdkSignatureClasses() {
    try {
      Class.forName("jdk.internal.foreign.MemorySessionImpl", false, null);
    } catch (ClassNotFoundException | LinkageError | SecurityException e) {
      // Another JDK layout: only the inlining of the stores is at stake.
    }
  }

  /** True if {@code record} is valid and holds exactly these ids and flags. */
  public static boolean holds(
      ByteBuffer record, long traceHigh, long traceLow, long span, int flags) {
    return (short) VALID_AND_FLAGS.get(record, VALID) == validAndFlags(flags)
        && (long) IDS.get(record, SPAN_ID) == span
        && (long) IDS.get(record, TRACE_ID + 8) == traceLow
        && (long) IDS.get(record, TRACE_ID) == traceHigh;
  }

  /** Publishes a context (the caller checked that the ids are valid, i.e. not all zero). */
  public static void write(ByteBuffer record, long traceHigh, long traceLow, long span, int flags) {
    begin(record);
    putIds(record, traceHigh, traceLow, span);
    end(record, flags);
  }

  /** True if the record carries no context: valid=0 and ids zero (what {@link #clear} leaves). */
  public static boolean isClear(ByteBuffer record) {
    return (short) VALID_AND_FLAGS.get(record, VALID) == 0
        && (long) IDS.get(record, SPAN_ID) == 0
        && (long) IDS.get(record, TRACE_ID + 8) == 0
        && (long) IDS.get(record, TRACE_ID) == 0;
  }

  /** Detaches: valid=0 first (readers stop using the record), then the ids are zeroed. */
  public static void clear(ByteBuffer record) {
    begin(record); // no reader may see zeroed ids with valid=1
    putIds(record, 0L, 0L, 0L);
  }

  /**
   * Starts an in-place rewrite that keeps the trace context (an attribute update): valid=0 with the
   * flags byte kept, then the fence that keeps every payload store after it. Returns the valid and
   * flags bytes from before, for {@link #restoreValidity}.
   */
  static short invalidateKeepingFlags(ByteBuffer record) {
    short before = (short) VALID_AND_FLAGS.get(record, VALID);
    VALID_AND_FLAGS.setOpaque(record, VALID, (short) (before & 0xff00));
    VarHandle.storeStoreFence(); // valid=0 lands before any payload byte
    return before;
  }

  /**
   * Ends a rewrite begun by {@link #invalidateKeepingFlags}: valid=1 again (release: after the
   * payload) if it was exactly 1 before; any other value stays 0, as
   * tls-publish/recordAttributes.cpp leaves it.
   */
  static void restoreValidity(ByteBuffer record, short before) {
    if ((before & 0xff) == 1) VALID_AND_FLAGS.setRelease(record, VALID, before);
  }

  /** Starts a rewrite of the whole record: valid=0 (flags 0), then the fence. */
  public static void begin(ByteBuffer record) {
    VALID_AND_FLAGS.setOpaque(record, VALID, (short) 0);
    VarHandle.storeStoreFence(); // valid=0 lands before any payload byte
  }

  /** Stores the ids inside a rewrite (plain stores: ordered by the fences around them). */
  public static void putIds(ByteBuffer record, long traceHigh, long traceLow, long span) {
    putTraceId(record, traceHigh, traceLow);
    putSpanId(record, span);
  }

  /** Stores the trace-id inside a rewrite. */
  public static void putTraceId(ByteBuffer record, long traceHigh, long traceLow) {
    IDS.set(record, TRACE_ID, traceHigh);
    IDS.set(record, TRACE_ID + 8, traceLow);
  }

  /** Stores the span-id inside a rewrite. */
  public static void putSpanId(ByteBuffer record, long span) {
    IDS.set(record, SPAN_ID, span);
  }

  /** Ends a rewrite begun by {@link #begin}: valid=1 and the flags, released after the payload. */
  public static void end(ByteBuffer record, int flags) {
    VALID_AND_FLAGS.setRelease(record, VALID, validAndFlags(flags)); // payload before valid=1
  }

  static short validAndFlags(int flags) {
    return (short) (((flags & 0xff) << 8) | 1);
  }
}
