package io.vtctx.internal;

/**
 * Decodes 8 ASCII hex digits packed in a long (first digit in the most significant byte) with a
 * handful of word operations instead of 8 table lookups: a new trace-id is 32 digits on every span
 * change into it, so this is most of the cost of publishing a new trace.
 */
final class HexSwar {
  private static final long LOW_NIBBLES = 0x0f0f0f0f0f0f0f0fL;
  private static final long ONES = 0x0101010101010101L;
  // Gathering the 8 nibbles with Long.compress (one PEXT) halves the decode where that is fast;
  // a constant, so the JIT keeps only one of the two paths.
  private static final boolean COMPRESS = CpuFeatures.fastBitCompress();

  private HexSwar() {}

  /**
   * The 32-bit value of 8 hex digits ('0'-'9', 'a'-'f', 'A'-'F'). It does NOT check them: any
   * other byte gives a wrong value, so callers pass only digits already known to be hex.
   */
  static long decode8Digits(long x) {
    return COMPRESS ? decode8DigitsCompress(x) : decode8DigitsShift(x);
  }

  /** True if {@link #decode8Digits} gathers nibbles with {@link Long#compress}. */
  static boolean usesCompress() {
    return COMPRESS;
  }

  // A digit's value is its low nibble, plus 9 for a letter (the only digits with bit 6, 0x40, set).
  private static long nibbles(long x) {
    return (x & LOW_NIBBLES) + ((x >>> 6) & ONES) * 9;
  }

  /** {@link #decode8Digits} packing the nibbles with shifts (any CPU). */
  static long decode8DigitsShift(long x) {
    long nibbles = nibbles(x);
    long t = (nibbles | (nibbles >>> 4)) & 0x00ff00ff00ff00ffL; // 2 digits per 16-bit lane
    t = (t | (t >>> 8)) & 0x0000ffff0000ffffL; // 4 digits per 32-bit lane
    return (t | (t >>> 16)) & 0xffffffffL; // 8 digits
  }

  /**
   * {@link #decode8Digits} gathering the low nibbles of the 8 bytes with one compress. Adding 9 to
   * a letter's byte already makes its low nibble the digit's value ('a' 0x61 -> 0x6a) without a
   * carry into the next byte (at most 0x6f), and the compress keeps only low nibbles: so no mask.
   */
  static long decode8DigitsCompress(long x) {
    return Long.compress(x + ((x >>> 6) & ONES) * 9, LOW_NIBBLES);
  }
}
