package io.vtctx;

import io.vtctx.internal.AgentLink;
import io.vtctx.internal.IdCache;
import io.vtctx.internal.ThreadRecord;
import java.util.Objects;

/**
 * Publishes the calling thread's trace context to external readers (eBPF profilers, syscall
 * tracers) through the OTEP 4947 record that the vtctx agent binds to every Java thread, virtual or
 * platform.
 *
 * <p>The record belongs to the thread, not to the OS thread it runs on: what a virtual thread
 * publishes stays with it across parks, remounts and carrier changes (the agent points each
 * carrier's {@code otel_thread_ctx_v1} at the record of the virtual thread it runs).
 *
 * <p>Every method affects the calling thread only and is cheap: a publish that changes nothing does
 * not write. Ids that W3C calls invalid (all zero) clear instead. Without the agent every method
 * does nothing and throws nothing for valid arguments (one log line at first use); if the agent is
 * attached later, publishing starts at each thread's next publish after the attach returns (see
 * docs/shim.md). Arguments are checked the same way with or without the agent.
 *
 * <p>With OpenTelemetry, use {@link io.vtctx.otel.VtctxContextStorage} instead: it publishes the
 * current span on every context change, and calls here would be overwritten at the next change.
 */
public final class ThreadContext {
  private ThreadContext() {}

  /**
   * Publishes a context given as W3C ids in network byte order.
   *
   * @param traceId 16 bytes
   * @param spanId 8 bytes
   * @param traceFlags W3C trace-flags (bit 0 = sampled); only the low 8 bits are used
   * @throws IllegalArgumentException if an id has the wrong length
   */
  public static void set(byte[] traceId, byte[] spanId, int traceFlags) {
    checkLength(traceId, 16, "traceId");
    checkLength(spanId, 8, "spanId");
    ThreadRecord r = ThreadRecord.current();
    if (r != null) {
      r.publish(bigEndian(traceId, 0), bigEndian(traceId, 8), bigEndian(spanId, 0), traceFlags);
    }
  }

  /**
   * Publishes a context given as longs: {@code traceIdHigh} holds trace-id bytes 0..7 (byte 0 most
   * significant), {@code traceIdLow} bytes 8..15, {@code spanId} the 8 span-id bytes.
   */
  public static void set(long traceIdHigh, long traceIdLow, long spanId, int traceFlags) {
    ThreadRecord r = ThreadRecord.current();
    if (r != null) r.publish(traceIdHigh, traceIdLow, spanId, traceFlags);
  }

  /**
   * Publishes a context given as hex ids, as in a W3C traceparent ({@code
   * 00-<traceId>-<spanId>-<flags>}).
   *
   * @param traceIdHex 32 hex digits
   * @param spanIdHex 16 hex digits
   * @throws IllegalArgumentException if an id is not hex of the right length
   */
  public static void setHex(String traceIdHex, String spanIdHex, int traceFlags) {
    Objects.requireNonNull(traceIdHex, "traceIdHex");
    Objects.requireNonNull(spanIdHex, "spanIdHex");
    ThreadRecord r = ThreadRecord.current();
    IdCache.Ids ids =
        r != null ? r.loadIds(null, traceIdHex, spanIdHex, traceFlags, false, null) : null;
    // Checked the same way without the agent.
    if (r != null ? ids == null : !IdCache.isHex(traceIdHex, spanIdHex)) {
      throw new IllegalArgumentException(
          "not a W3C trace-id (32 hex digits) and span-id (16): " + traceIdHex + ", " + spanIdHex);
    }
    if (r != null) r.publish(null, ids, null);
  }

  /** Detaches: the thread's record carries no context (valid=0) until the next set. */
  public static void clear() {
    ThreadRecord r = ThreadRecord.current();
    if (r != null) r.publish(0L, 0L, 0L, 0); // all-zero ids: no context
  }

  /**
   * The native address of the calling thread's record, stable for the thread's life (what readers
   * find through {@code otel_thread_ctx_v1} while the thread runs), or 0 without the agent.
   */
  public static long recordAddress() {
    return ThreadRecord.currentAddress();
  }

  /** True if the agent is loaded and active, i.e. publishing has an effect. */
  public static boolean isAgentActive() {
    return AgentLink.active();
  }

  private static void checkLength(byte[] id, int length, String name) {
    if (Objects.requireNonNull(id, name).length != length) {
      throw new IllegalArgumentException(
          name + " must have " + length + " bytes, not " + id.length);
    }
  }

  private static long bigEndian(byte[] b, int offset) {
    long v = 0;
    for (int i = 0; i < 8; i++) v = (v << 8) | (b[offset + i] & 0xff);
    return v;
  }
}
