package io.vtctx.testing;

import io.opentelemetry.api.trace.SpanContext;
import io.vtctx.test.CarrierProbe;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the CARRIER publishes right now, as an external reader would read it: the record that the
 * calling thread's OS thread's otel_thread_ctx_v1 points at, and its first 28 bytes (the OTEP 4947
 * header) or more (attrs-data). Taken in one JNI call, so on one carrier.
 */
public record Published(long address, byte[] header) {
  private static final HexFormat HEX = HexFormat.of();

  /** Opens the agent for the probe (path from -Dvtctx.test.agent); false if it is not loaded. */
  public static boolean init() {
    return CarrierProbe.init(System.getProperty("vtctx.test.agent"));
  }

  public static Published now() {
    return now(28);
  }

  /** Like {@link #now()}, with the record's first {@code bytes} bytes (attrs-data included). */
  public static Published now(int bytes) {
    byte[] record = new byte[bytes];
    long address = CarrierProbe.snapshot(record);
    return new Published(address, record);
  }

  /**
   * The attribute entries, parsed as a strict OTEP 4947 reader would: key index to UTF-8 value.
   * Throws if attrs-data-size reaches past the bytes read, an entry is truncated, or a key repeats
   * (this writer keeps one entry per key).
   */
  public Map<Integer, String> attributes() {
    int size = (header[26] & 0xff) | (header[27] & 0xff) << 8; // little-endian host
    if (size > header.length - 28) {
      throw new IllegalStateException("attrs_data_size " + size + " beyond " + header.length);
    }
    Map<Integer, String> out = new TreeMap<>();
    int pos = 28;
    while (pos < 28 + size) {
      if (28 + size - pos < 2) throw new IllegalStateException("truncated entry header: " + this);
      int key = header[pos] & 0xff;
      int len = header[pos + 1] & 0xff;
      if (pos + 2 + len > 28 + size) throw new IllegalStateException("truncated entry: " + this);
      String value = new String(header, pos + 2, len, StandardCharsets.UTF_8);
      if (out.put(key, value) != null) throw new IllegalStateException("key repeated: " + this);
      pos += 2 + len;
    }
    return out;
  }

  /** The raw attrs-data bytes (attrs_data_size of them). */
  public byte[] attrsData() {
    int size = (header[26] & 0xff) | (header[27] & 0xff) << 8;
    return Arrays.copyOfRange(header, 28, 28 + Math.min(size, header.length - 28));
  }

  public int valid() {
    return header[24] & 0xff;
  }

  public int flags() {
    return header[25] & 0xff;
  }

  public byte[] traceId() {
    return Arrays.copyOfRange(header, 0, 16);
  }

  public byte[] spanId() {
    return Arrays.copyOfRange(header, 16, 24);
  }

  /**
   * Null if the carrier publishes {@code record} and it holds {@code expected} byte-exact (or, for
   * an invalid/absent span context, valid=0); otherwise what is wrong.
   */
  public static String mismatch(long record, SpanContext expected) {
    return mismatch(now(), record, expected);
  }

  /** Like {@link #mismatch(long, SpanContext)}, on a snapshot already taken. */
  public static String mismatch(Published p, long record, SpanContext expected) {
    if (p.address != record) {
      return "carrier publishes 0x"
          + Long.toHexString(p.address)
          + ", not the thread's 0x"
          + Long.toHexString(record);
    }
    if (expected == null || !expected.isValid()) {
      return p.valid() == 0 ? null : "record valid=" + p.valid() + " without a current span: " + p;
    }
    if (p.valid() != 1
        || !Arrays.equals(p.traceId(), expected.getTraceIdBytes())
        || !Arrays.equals(p.spanId(), expected.getSpanIdBytes())
        || p.flags() != (expected.getTraceFlags().asByte() & 0xff)) {
      return "record "
          + p
          + ", current span "
          + expected.getTraceId()
          + "/"
          + expected.getSpanId()
          + " flags "
          + expected.getTraceFlags().asHex();
    }
    return null;
  }

  @Override
  public String toString() {
    return "0x"
        + Long.toHexString(address)
        + " {trace "
        + HEX.formatHex(traceId())
        + ", span "
        + HEX.formatHex(spanId())
        + ", valid "
        + valid()
        + ", flags "
        + flags()
        + "}";
  }
}
