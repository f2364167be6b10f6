package io.vtctx.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Per-thread memory of the last two id sets decoded from hex, keyed by the identity of the object
 * they came from (an OpenTelemetry SpanContext). Decoding 48 hex digits is most of the cost of a
 * publish; with this cache a scope that closes back to the enclosing span, or a context change that
 * keeps the span, decodes nothing, and a child span decodes only its span-id (it shares the
 * parent's trace-id string).
 *
 * <p>Two entries cover the common nesting: entering a span and returning to its parent. Entry 0 is
 * the most recently used; values are fields (no per-publish allocation). Used only by its thread.
 */
public final class IdCache {
  private Object key0;
  private String trace0;
  private long high0;
  private long low0;
  private long span0;
  private int flags0;

  private Object key1;
  private String trace1;
  private long high1;
  private long low1;
  private long span1;
  private int flags1;

  private int error; // negative once a decoded char was not a hex digit
  private final byte[] scratch = new byte[16];

  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

  /** Makes the entry of {@code key} current and returns true, or returns false if it is unknown. */
  public boolean select(Object key) {
    if (key == null) return false;
    if (key0 == key) return true;
    if (key1 != key) return false;
    swap();
    return true;
  }

  /**
   * Decodes the ids into entry 0 (the old entry 0 becomes entry 1) under {@code key}, or returns
   * false and caches nothing if they are not well-formed hex (32 and 16 digits). A null key is
   * never selected again, but its trace-id can still be reused by a later load.
   */
  public boolean load(Object key, String traceHex, String spanHex, int flags) {
    return load(key, traceHex, spanHex, flags, false);
  }

  /**
   * Like {@link #load(Object, String, String, int)}; {@code latin1} promises that both strings hold
   * only chars below 256 (e.g. OpenTelemetry's own SpanContext, which validated them as hex), so
   * they can be decoded 8 digits at a time from their bytes (SWAR) instead of char by char.
   */
  public boolean load(Object key, String traceHex, String spanHex, int flags, boolean latin1) {
    if (traceHex.length() != 32 || spanHex.length() != 16) return false;
    long high;
    long low;
    error = 0;
    if (traceHex == trace0) { // the same String: spans of one trace share it (immutable)
      high = high0;
      low = low0;
    } else if (traceHex == trace1) {
      high = high1;
      low = low1;
    } else {
      high = decode16(traceHex, 0, latin1);
      low = decode16(traceHex, 16, latin1);
    }
    long span = decode16(spanHex, 0, latin1);
    if (error < 0) return false;
    key1 = key0;
    trace1 = trace0;
    high1 = high0;
    low1 = low0;
    span1 = span0;
    flags1 = flags0;
    key0 = key;
    trace0 = traceHex;
    high0 = high;
    low0 = low;
    span0 = span;
    flags0 = flags;
    return true;
  }

  public long traceHigh() {
    return high0;
  }

  public long traceLow() {
    return low0;
  }

  public long span() {
    return span0;
  }

  public int flags() {
    return flags0;
  }

  private long decode16(String s, int offset, boolean latin1) {
    if (latin1) {
      // Copies the low byte of each char: exact for the Latin-1 chars the caller promised.
      s.getBytes(offset, offset + 16, scratch, 0);
      long high = HexSwar.decode8((long) LONGS.get(scratch, 0));
      long low = HexSwar.decode8((long) LONGS.get(scratch, 8));
      error |= (int) ((high | low) >> 32); // -1 if any digit was not hex
      return (high << 32) | (low & 0xffffffffL);
    }
    long v = 0;
    int err = 0;
    for (int i = 0; i < 16; i++) {
      int d = Hex.digit(s.charAt(offset + i));
      err |= d;
      v = (v << 4) | (d & 0xf);
    }
    error |= err;
    return v;
  }

  private void swap() {
    Object k = key0;
    String t = trace0;
    long h = high0;
    long l = low0;
    long s = span0;
    int f = flags0;
    key0 = key1;
    trace0 = trace1;
    high0 = high1;
    low0 = low1;
    span0 = span1;
    flags0 = flags1;
    key1 = k;
    trace1 = t;
    high1 = h;
    low1 = l;
    span1 = s;
    flags1 = f;
  }
}
