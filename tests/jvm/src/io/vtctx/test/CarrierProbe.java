package io.vtctx.test;

/**
 * Test-only natives (libvtctx_carrier_probe.so) that look at the carrier's otel_thread_ctx_v1 the
 * way an external reader would. Each call runs on one carrier (a virtual thread is pinned while in
 * native code).
 */
public final class CarrierProbe {
  public static final int OK = 0;
  public static final int NO_SLOT = 1;
  public static final int WRONG_RECORD = 2;
  public static final int NOT_VALID = 3;
  public static final int WRONG_CONTENT = 4;
  public static final int NULL_RECORD = 5;

  private CarrierProbe() {}

  static {
    System.loadLibrary("vtctx_carrier_probe");
  }

  /** Opens the loaded agent; false if it is not loaded. */
  public static native boolean init(String agentPath);

  /** What this carrier publishes now (0 = NULL). */
  public static native long publishedRecord();

  /** One-call check of pointer, valid flag and ids; returns a result code above. */
  public static native int check(long expectedRecord, long traceHi, long traceLo, long span);

  /** Copies the published record's first out.length bytes; returns bytes copied (0 = NULL). */
  public static native int readPublished(byte[] out);

  /**
   * In one call (one carrier): copies the first out.length bytes of the record this carrier
   * publishes into out and returns its address (0 = NULL, nothing copied; -1 = no slot).
   */
  public static native long snapshot(byte[] out);

  /** Writes a context into the record at {@code record} with the native in-place writer. */
  public static native void write(long record, long traceHi, long traceLo, long span, int flags);

  public static String describe(int code) {
    return switch (code) {
      case OK -> "ok";
      case NO_SLOT -> "no otel_thread_ctx_v1 slot";
      case WRONG_RECORD -> "carrier publishes another record";
      case NOT_VALID -> "published record not valid";
      case WRONG_CONTENT -> "published record holds other ids";
      case NULL_RECORD -> "carrier publishes NULL";
      default -> "code " + code;
    };
  }
}
