package io.vtctx.testing;

import io.opentelemetry.api.trace.SpanContext;
import io.vtctx.test.CarrierProbe;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * What the CARRIER publishes right now, as an external reader would read it: the record that the
 * calling thread's OS thread's otel_thread_ctx_v1 points at, and its first 28 bytes (the OTEP 4947
 * header). Taken in one JNI call, so on one carrier.
 */
public record Published(long address, byte[] header) {
  private static final HexFormat HEX = HexFormat.of();

  /** Opens the agent for the probe (path from -Dvtctx.test.agent); false if it is not loaded. */
  public static boolean init() {
    return CarrierProbe.init(System.getProperty("vtctx.test.agent"));
  }

  public static Published now() {
    byte[] header = new byte[28];
    long address = CarrierProbe.snapshot(header);
    return new Published(address, header);
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
    Published p = now();
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
