package io.vtctx.correctness;

/**
 * The synthetic, self-describing contexts the senders publish. Every id names the run, the
 * scenario and the sender (and the span the sequence number), so a misattributed context in a
 * reader's output says by itself whose it was.
 *
 * <pre>
 *   trace-id = 76746378 SS RRRR 00 | sender (16 hex)       "vtcx", scenario code, run number
 *   span-id  = 8 | sender (10 hex, 40 bits) | seq (6 hex)  marker scope: sender and sequence
 *   span-id  = 4 | sender ...            | 000000           a thread's OpenTelemetry root span
 * </pre>
 *
 * <p>The top bit of a marker's span-id keeps it non-zero (W3C: all-zero ids are invalid), and the
 * root spans use a different top nibble so that they never equal a marker's span.
 */
final class Ids {
  private final long traceHigh;

  Ids(int scenarioCode, int run) {
    this.traceHigh =
        0x7674637800000000L | ((scenarioCode & 0xffL) << 24) | ((run & 0xffffL) << 8);
  }

  long traceHigh() {
    return traceHigh;
  }

  /** The low 8 trace-id bytes: one trace per sender. */
  static long traceLow(int sender) {
    return sender;
  }

  /** The span of marker {@code seq} of {@code sender}. */
  static long span(int sender, int seq) {
    return 0x8000000000000000L | ((sender & 0xffffffffffL) << 24) | (seq & 0xffffffL);
  }

  /** The OpenTelemetry root span of {@code sender}'s thread (never a marker's span). */
  static long rootSpan(int sender) {
    return 0x4000000000000000L | ((sender & 0xffffffffffL) << 24);
  }

  static String hex16(long v) {
    return String.format("%016x", v);
  }
}
