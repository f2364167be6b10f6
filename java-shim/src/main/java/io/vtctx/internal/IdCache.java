package io.vtctx.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Per-thread memory of the last two id sets decoded from hex, keyed by the identity of the object
 * they came from (an OpenTelemetry SpanContext). Decoding 48 hex digits is most of the cost of a
 * publish; with this cache a scope that closes back to the enclosing span, or a context change that
 * keeps the span, decodes nothing, and a child span decodes only its span-id (the caller names the
 * entry that has the same trace-id: {@code sameTrace} of {@link #load}).
 *
 * <p>Two entries cover the common nesting: entering a span and returning to its parent. Selecting
 * one moves no data and stores no reference (which entry is recent is a boolean), and a load
 * overwrites the older one in place, storing one reference (the key). Reference stores matter here:
 * with G1, a reference stored into a long-lived object costs a StoreLoad fence. Used only by its
 * thread.
 */
public final class IdCache {
  /** One decoded id set; valid until the next {@link #load} replaces it (the older entry). */
  public static final class Ids {
    private final int slot;
    private Object key;
    private long high;
    private long low;
    private long span;
    private int flags;

    private Ids(int slot) {
      this.slot = slot;
    }

    /** What the ids were loaded under (null: nothing, or no key); see {@link IdCache#select}. */
    public Object key() {
      return key;
    }

    /** 0 or 1: which of its cache's two entries this is. */
    int slot() {
      return slot;
    }

    public long traceHigh() {
      return high;
    }

    public long traceLow() {
      return low;
    }

    public long span() {
      return span;
    }

    public int flags() {
      return flags;
    }
  }

  private final Ids first = new Ids(0);
  private final Ids second = new Ids(1);
  private boolean secondRecent; // the other entry is the older one, replaced by the next load
  // The digits copied out of the id Strings (no public String API reads them in place): trace-id
  // at 0, span-id at SPAN_DIGITS.
  private final byte[] scratch = new byte[48];
  private static final int SPAN_DIGITS = 32;
  private int error; // negative once a checked char of this load was not a hex digit

  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

  /** The ids loaded under {@code key}, now the most recent entry, or null if unknown. */
  public Ids select(Object key) {
    Ids r = secondRecent ? second : first;
    if (r.key == key) return key != null ? r : null;
    Ids older = secondRecent ? first : second;
    if (older.key != key || key == null) return null;
    secondRecent = !secondRecent;
    return older;
  }

  /** The entry in {@code slot} (0 or 1). */
  Ids entry(int slot) {
    return slot == 0 ? first : second;
  }

  /** The most recently selected or loaded entry (its key may be null). */
  public Ids recent() {
    return secondRecent ? second : first;
  }

  /** The entry the next {@link #load} overwrites (its key may be null). */
  public Ids older() {
    return secondRecent ? first : second;
  }

  /**
   * Decodes the ids into the older entry, which becomes the recent one under {@code key}, and
   * returns it; or returns null and caches nothing if they are not hex of the right length (32 and
   * 16 digits). A null key is never selected again. The replacement rule: a load replaces exactly
   * the entry it returns, whose previous key and ids are gone ({@link ThreadRecord#loadIds}, the
   * only caller outside tests, lets go of that entry's source through the returned entry).
   *
   * @param hexDigits promises that both strings consist of hex digits only (OpenTelemetry's own
   *     SpanContext generated or validated them): they are then decoded 8 digits at a time without
   *     checking each digit. Without the promise every char is checked.
   * @param sameTrace an entry of this cache whose trace-id is {@code traceHex} (the caller knows,
   *     e.g. from the same String), whose decoded trace-id is taken instead; or null
   */
  // String.getBytes(int, int, byte[], int) is deprecated because it keeps only each char's low
  // byte; for hex digits (ASCII) that is the digit, and it is the only public String API that
  // copies chars into a byte array without allocating one.
  @SuppressWarnings("deprecation")
  Ids load(
      Object key, String traceHex, String spanHex, int flags, boolean hexDigits, Ids sameTrace) {
    if (traceHex.length() != 32 || spanHex.length() != 16) return null;
    error = 0;
    long high;
    long low;
    long span;
    if (!hexDigits) {
      high = sameTrace != null ? sameTrace.high : decode16Checked(traceHex, 0);
      low = sameTrace != null ? sameTrace.low : decode16Checked(traceHex, 16);
      span = decode16Checked(spanHex, 0);
      if (error < 0) return null;
    } else if (sameTrace != null) { // read before the older entry, which may be sameTrace, changes
      high = sameTrace.high;
      low = sameTrace.low;
      spanHex.getBytes(0, 16, scratch, SPAN_DIGITS);
      span = digits16(scratch, SPAN_DIGITS);
    } else { // both copies first, then the decodes
      traceHex.getBytes(0, 32, scratch, 0);
      spanHex.getBytes(0, 16, scratch, SPAN_DIGITS);
      high = digits16(scratch, 0);
      low = digits16(scratch, 16);
      span = digits16(scratch, SPAN_DIGITS);
    }
    Ids older = older();
    older.key = key; // the one reference stored per load
    older.high = high;
    older.low = low;
    older.span = span;
    older.flags = flags;
    secondRecent = !secondRecent;
    return older;
  }

  /** Like {@code load(key, traceHex, spanHex, flags, false, null)}: every char is checked. */
  Ids load(Object key, String traceHex, String spanHex, int flags) {
    return load(key, traceHex, spanHex, flags, false, null);
  }

  /** True if these are a trace-id and span-id that {@link #load} accepts (checked char by char). */
  public static boolean isHex(String traceHex, String spanHex) {
    return new IdCache().load(null, traceHex, spanHex, 0) != null;
  }

  // The 16 hex digits at digits[offset..] of the scratch copy (hex digits are ASCII, so the low
  // bytes that getBytes copies are the digits themselves).
  private static long digits16(byte[] digits, int offset) {
    long high = HexSwar.decode8Digits((long) LONGS.get(digits, offset));
    long low = HexSwar.decode8Digits((long) LONGS.get(digits, offset + 8));
    return (high << 32) | low;
  }

  private long decode16Checked(String s, int offset) {
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
}
