package io.vtctx.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The Java attribute writer on plain off-heap memory laid out like a record, with guard bytes
 * around it (no agent needed): the rules of tls-publish/recordAttributes.h, checked against an
 * independent list model and on the OTEP's 64-byte example. AttributeNativeEquivalenceTest checks
 * the same writer byte for byte against the agent's native.
 */
class AttributeWriterTest {
  private static final int GUARD = 64;
  private static final byte GUARD_BYTE = (byte) 0xa5;

  /** A record of {@code size} bytes (64-byte aligned) with GUARD guard bytes on each side. */
  private static ByteBuffer[] record(int size) {
    ByteBuffer all = ByteBuffer.allocateDirect(size + 2 * GUARD + 64).alignedSlice(64);
    for (int i = 0; i < all.capacity(); i++) all.put(i, GUARD_BYTE);
    ByteBuffer r = all.slice(GUARD, size);
    for (int i = 0; i < size; i++) r.put(i, (byte) 0);
    return new ByteBuffer[] {all, r};
  }

  private static void assertGuards(ByteBuffer all, int size) {
    for (int i = 0; i < GUARD; i++) assertEquals(GUARD_BYTE, all.get(i), "guard before, " + i);
    for (int i = GUARD + size; i < all.capacity(); i++) {
      assertEquals(GUARD_BYTE, all.get(i), "guard after the record, offset " + (i - GUARD));
    }
  }

  private static int size(ByteBuffer r) {
    return Short.toUnsignedInt(r.order(ByteOrder.nativeOrder()).getShort(26));
  }

  /** The model: attrs-data as a list of entries, parsed as a reader would (stop at truncation). */
  record Entry(int key, byte[] value) {}

  static List<Entry> parse(ByteBuffer r) {
    int used = Math.min(size(r), r.capacity() - 28);
    List<Entry> out = new ArrayList<>();
    int pos = 0;
    while (used - pos >= 2) {
      int len = Byte.toUnsignedInt(r.get(28 + pos + 1));
      if (2 + len > used - pos) break;
      byte[] v = new byte[len];
      r.get(28 + pos + 2, v);
      out.add(new Entry(Byte.toUnsignedInt(r.get(28 + pos)), v));
      pos += 2 + len;
    }
    return out;
  }

  /** What a set must leave, computed on the list model; returns the expected stored count. */
  static int modelSet(List<Entry> entries, int capacity, int key, String value) {
    entries.removeIf(e -> e.key() == key);
    if (value == null) return 0;
    int used = 0;
    for (Entry e : entries) used += 2 + e.value().length;
    if (capacity - used < 2) return -1;
    byte[] utf8 = Utf8Test.reference(value);
    int n = Utf8Test.prefix(utf8, Math.min(255, capacity - used - 2));
    entries.add(new Entry(key, Arrays.copyOf(utf8, n)));
    return n;
  }

  private static void assertEntries(List<Entry> want, ByteBuffer r, String what) {
    List<Entry> got = parse(r);
    assertEquals(want.size(), got.size(), what + ": " + describe(got));
    for (int i = 0; i < want.size(); i++) {
      assertEquals(want.get(i).key(), got.get(i).key(), what);
      assertArrayEquals(want.get(i).value(), got.get(i).value(), what);
    }
    int used = 0;
    for (Entry e : got) used += 2 + e.value().length;
    assertEquals(used, size(r), what + ": attrs_data_size covers exactly the entries");
  }

  private static String describe(List<Entry> entries) {
    StringBuilder b = new StringBuilder();
    for (Entry e : entries) {
      b.append(e.key()).append('=').append(new String(e.value(), StandardCharsets.UTF_8));
      b.append(' ');
    }
    return b.toString();
  }

  @ParameterizedTest
  @ValueSource(ints = {64, 640})
  void randomSetsFollowTheModelAndStayInsideTheRecord(int recordSize) {
    ByteBuffer[] rec = record(recordSize);
    ByteBuffer r = rec[1];
    List<Entry> model = new ArrayList<>();
    SplittableRandom rnd = new SplittableRandom(recordSize);
    for (int i = 0; i < 20000; i++) {
      int key = rnd.nextInt(6);
      String value =
          rnd.nextInt(8) == 0
              ? null
              : Utf8Test.random(rnd, rnd.nextInt(0, rnd.nextInt(4) == 0 ? 300 : 12));
      int want = modelSet(model, recordSize - 28, key, value);
      int got = AttributeWriter.set(r, key, value);
      assertEquals(want, got, "stored bytes, step " + i);
      assertEntries(model, r, "step " + i);
      assertGuards(rec[0], recordSize);
    }
  }

  @Test
  void otepExampleRecord() {
    ByteBuffer r = record(64)[1];
    RecordWriter.write(r, 0x0101010101010101L, 0x0101010101010101L, 0x0202020202020202L, 0);
    assertEquals(3, AttributeWriter.set(r, 0, "foo"));
    assertEquals(3, AttributeWriter.set(r, 1, "bar"));
    byte[] bytes = new byte[38];
    r.get(0, bytes);
    assertEquals(
        "01".repeat(16) + "02".repeat(8) + "01" + "00" + "0a00" + "0003666f6f" + "0103626172",
        HexFormat.of().formatHex(bytes));
  }

  @Test
  void oneEntryPerKeyTheNewValueLast() {
    ByteBuffer r = record(64)[1];
    AttributeWriter.set(r, 0, "GET");
    AttributeWriter.set(r, 1, "/api/test");
    AttributeWriter.set(r, 0, "POST");
    assertEquals("1=/api/test 0=POST ", describe(parse(r)));
    assertEquals(0, AttributeWriter.set(r, 0, null));
    assertEquals("1=/api/test ", describe(parse(r)));
    assertEquals(0, AttributeWriter.set(r, 7, null), "removing an absent key is fine");
  }

  @Test
  void aFullRecordRefusesButStillRemovesTheOldValue() {
    ByteBuffer r = record(64)[1];
    assertEquals(34, AttributeWriter.set(r, 0, "x".repeat(100)), "36 bytes: 2 + 34");
    assertEquals(-1, AttributeWriter.set(r, 1, "y"), "no room for even an empty entry");
    assertEquals(36, size(r));
    AttributeWriter.set(r, 0, "x".repeat(33)); // 35 bytes used, 1 left
    assertEquals(-1, AttributeWriter.set(r, 1, ""));
    assertEquals(34, AttributeWriter.set(r, 0, "z".repeat(40)), "replacing reuses the room");
    assertEquals("0=" + "z".repeat(34) + " ", describe(parse(r)));
  }

  @Test
  void valuesAreCutAtCharacterBoundaries() {
    ByteBuffer r = record(640)[1];
    String[] chars = {"a", "\u00e9", "\u20ac", "\ud83d\ude00"};
    for (String ch : chars) {
      int per = ch.getBytes(StandardCharsets.UTF_8).length;
      int stored = AttributeWriter.set(r, 3, ch.repeat(300));
      assertEquals(255 / per * per, stored, ch + ": 255-byte limit");
    }
    ByteBuffer small = record(64)[1];
    for (String ch : chars) {
      int per = ch.getBytes(StandardCharsets.UTF_8).length;
      assertEquals(34 / per * per, AttributeWriter.set(small, 3, ch.repeat(300)), ch);
    }
  }

  @Test
  void validityAndFlagsAreKept() {
    ByteBuffer r = record(64)[1];
    RecordWriter.write(r, 1, 2, 3, 0x81);
    AttributeWriter.set(r, 0, "v");
    assertEquals(1, r.get(24));
    assertEquals((byte) 0x81, r.get(25));
    assertTrue(RecordWriter.holds(r, 1, 2, 3, 0x81));
    RecordWriter.clear(r);
    AttributeWriter.set(r, 0, "w");
    assertEquals(0, r.get(24), "attributes never make a record valid");
    r.put(24, (byte) 2);
    AttributeWriter.set(r, 0, "x");
    assertEquals(0, r.get(24), "any value but 1 ends as 0, as the native leaves it");
  }

  @Test
  void corruptSizesAndTruncatedTailsAreRepaired() {
    ByteBuffer r = record(64)[1];
    r.order(ByteOrder.nativeOrder()).putShort(26, (short) 0xffff); // beyond the record
    for (int i = 28; i < 64; i++) r.put(i, (byte) 40); // entries claiming 40 bytes: truncated
    assertEquals(1, AttributeWriter.set(r, 0, "a"));
    assertEquals("0=a ", describe(parse(r)));
    assertEquals(3, size(r));
    r.order(ByteOrder.nativeOrder()).putShort(26, (short) 5); // "0=a" + a 2-byte tail
    r.put(31, (byte) 9).put(32, (byte) 10);
    assertTrue(AttributeWriter.remove(r, 0));
    assertEquals(0, size(r));
    assertFalse(AttributeWriter.remove(r, 0));
  }
}
