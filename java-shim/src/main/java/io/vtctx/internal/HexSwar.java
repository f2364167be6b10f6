package io.vtctx.internal;

/**
 * Decodes 8 ASCII hex digits packed in a long (first digit in the most significant byte) with a
 * handful of word operations instead of 8 table lookups: a new trace-id is 32 digits on every span
 * change into it, so this is most of the cost of publishing a new trace.
 */
final class HexSwar {
  private static final long ONES = 0x0101010101010101L;
  private static final long HIGH_BITS = 0x8080808080808080L;

  private HexSwar() {}

  /**
   * The 32-bit value of the 8 digits in the low half, or -1 if any byte is not a hex digit
   * ('0'-'9', 'a'-'f', 'A'-'F'). Range checks: with every byte below 0x80, {@code b + (0x80 - lo)}
   * sets the byte's high bit iff {@code b >= lo}, and {@code (0x80 + hi) - b} iff {@code b <= hi};
   * neither carries nor borrows across bytes.
   */
  static long decode8(long x) {
    long ascii = ~x & HIGH_BITS; // high bit set where the byte is below 0x80
    long digit = ge(x, 0x30) & le(x, 0x39);
    long lower = ge(x, 0x61) & le(x, 0x66);
    long upper = ge(x, 0x41) & le(x, 0x46);
    long letter = lower | upper;
    boolean valid = ((digit | letter) & ascii) == HIGH_BITS;
    long nibbles = (x & 0x0f0f0f0f0f0f0f0fL) + (letter >>> 7) * 9; // 'a' & 0xf = 1, + 9 = 10
    long t = (nibbles | (nibbles >>> 4)) & 0x00ff00ff00ff00ffL; // 2 digits per 16-bit lane
    t = (t | (t >>> 8)) & 0x0000ffff0000ffffL; // 4 digits per 32-bit lane
    t = (t | (t >>> 16)) & 0xffffffffL; // 8 digits
    return valid ? t : -1L;
  }

  // Meaningful only for bytes below 0x80 (checked separately): the high bit of each byte.
  private static long ge(long x, int lo) {
    return ((x & ~HIGH_BITS) + (0x80 - lo) * ONES) & HIGH_BITS;
  }

  private static long le(long x, int hi) {
    return ((0x80 + hi) * ONES - (x & ~HIGH_BITS)) & HIGH_BITS;
  }
}
