package io.vtctx.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** The Java writer against plain off-heap memory laid out like a record (no agent needed). */
class RecordWriterTest {
  private static final HexFormat HEX = HexFormat.of();

  private static ByteBuffer record() {
    ByteBuffer b = ByteBuffer.allocateDirect(64 + 64).alignedSlice(64);
    return b.limit(64).slice();
  }

  @Test
  void writesW3cBytesInNetworkOrder() {
    ByteBuffer r = record();
    RecordWriter.write(r, 0x4bf92f3577b34da6L, 0xa3ce929d0e0e4736L, 0x00f067aa0ba902b7L, 0x01);
    byte[] header = new byte[28];
    r.get(0, header);
    assertEquals(
        "4bf92f3577b34da6a3ce929d0e0e4736" + "00f067aa0ba902b7" + "01" + "01" + "0000",
        HEX.formatHex(header));
    assertTrue(
        RecordWriter.holds(r, 0x4bf92f3577b34da6L, 0xa3ce929d0e0e4736L, 0x00f067aa0ba902b7L, 1));
    assertFalse(
        RecordWriter.holds(r, 0x4bf92f3577b34da6L, 0xa3ce929d0e0e4736L, 0x00f067aa0ba902b7L, 0));
    assertFalse(
        RecordWriter.holds(r, 0x4bf92f3577b34da6L, 0xa3ce929d0e0e4736L, 0x00f067aa0ba902b8L, 1));
    assertFalse(
        RecordWriter.holds(r, 0x4bf92f3577b34da6L, 0xa3ce929d0e0e4737L, 0x00f067aa0ba902b7L, 1));
    assertFalse(
        RecordWriter.holds(r, 0x4bf92f3577b34da7L, 0xa3ce929d0e0e4736L, 0x00f067aa0ba902b7L, 1));
  }

  @Test
  void flagsUseTheLowByteOnly() {
    ByteBuffer r = record();
    RecordWriter.write(r, 1, 2, 3, 0x1ff);
    assertEquals(1, r.get(RecordWriter.VALID));
    assertEquals((byte) 0xff, r.get(RecordWriter.TRACE_FLAGS));
    assertTrue(RecordWriter.holds(r, 1, 2, 3, 0xff));
  }

  @Test
  void clearLeavesValidZeroAndIdsZero() {
    ByteBuffer r = record();
    RecordWriter.write(r, -1, -1, -1, 1);
    assertFalse(RecordWriter.isClear(r));
    RecordWriter.clear(r);
    assertTrue(RecordWriter.isClear(r));
    byte[] header = new byte[26];
    r.get(0, header);
    assertArrayEquals(new byte[26], header);
    assertFalse(RecordWriter.holds(r, 0, 0, 0, 0), "a cleared record holds no context");
  }

  @Test
  void attributesAreNotTouched() {
    ByteBuffer r = record();
    r.put(26, (byte) 10).put(27, (byte) 0).put(28, (byte) 7).put(63, (byte) 9);
    RecordWriter.write(r, 1, 2, 3, 1);
    RecordWriter.clear(r);
    RecordWriter.write(r, 4, 5, 6, 0);
    assertEquals(10, r.get(26));
    assertEquals(0, r.get(27));
    assertEquals(7, r.get(28));
    assertEquals(9, r.get(63));
  }
}
