package io.vtctx.internal;

/** Hex digits of W3C ids (lowercase, as W3C requires, or uppercase, as some tracers print them). */
final class Hex {
  private static final byte[] DIGITS = new byte[128]; // value of each ASCII char, or -1

  static {
    java.util.Arrays.fill(DIGITS, (byte) -1);
    for (int i = 0; i < 10; i++) DIGITS['0' + i] = (byte) i;
    for (int i = 0; i < 6; i++) {
      DIGITS['a' + i] = (byte) (10 + i);
      DIGITS['A' + i] = (byte) (10 + i);
    }
  }

  private Hex() {}

  /** The value of hex digit {@code c}, or -1 (all bits set) if it is none. Branch-free. */
  static int digit(char c) {
    return DIGITS[c & 0x7f] | ((0x7f - c) >> 31); // the shift gives -1 for chars above ASCII
  }
}
