package io.vtctx.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Attribute entries in a record's attrs-data, written from Java: the twin of
 * tls-publish/recordAttributes.cpp (the reference, reached through {@code
 * AgentNatives.setAttribute}), byte for byte. Only the thread that owns the record calls it.
 *
 * <p>Rules, as in the native writer:
 *
 * <ul>
 *   <li>entries are {@code {key_index u8, length u8, value[length]}}, packed from offset 28;
 *       attrs-data-size (u16 at 26, host byte order) covers whole entries only;
 *   <li>one entry per key: a set removes the key's entry (later entries move up, a truncated tail
 *       is dropped) and appends the new one at the end;
 *   <li>the value is UTF-8 ({@link Utf8}), cut at a character boundary to what fits: at most 255
 *       bytes and never past the record's end ({@code capacity - 28} bytes for all entries);
 *   <li>a set that has no room even for an empty entry still removes the key's old value and
 *       returns -1;
 *   <li>the record's validity is kept: attributes alone never make a record valid.
 * </ul>
 *
 * <p>A standalone update ({@link #set}) is one in-place rewrite (valid=0, fence, payload, release
 * store of the old validity; see {@link RecordWriter}). {@link #put} and {@link #remove} only write
 * the payload, for callers that change ids and attributes in one rewrite.
 */
public final class AttributeWriter {
  public static final int ATTRS_DATA_SIZE = 26;
  public static final int ATTRS_DATA = 28;
  public static final int MAX_VALUE_BYTES = 255; // the length field is a u8
  private static final int ENTRY_HEADER = 2;

  private static final VarHandle SIZE =
      MethodHandles.byteBufferViewVarHandle(short[].class, ByteOrder.nativeOrder());

  private AttributeWriter() {}

  /**
   * Sets ({@code value} non-null) or removes ({@code null}) attribute {@code key} (0..254) of
   * {@code record} in one in-place rewrite. Returns the UTF-8 bytes stored, 0 for a removal, or -1
   * if not even an empty entry fits.
   */
  public static int set(ByteBuffer record, int key, String value) {
    short before = RecordWriter.invalidateKeepingFlags(record);
    int stored;
    if (value != null) {
      stored = put(record, key, value);
    } else {
      remove(record, key);
      stored = 0;
    }
    RecordWriter.restoreValidity(record, before);
    return stored;
  }

  /**
   * Inside a rewrite: replaces {@code key}'s entry by {@code value}; returns bytes stored or -1.
   * Once the agent turned attributes off ({@link AgentLink#attributesOff}), stores nothing and
   * empties the record's attributes instead (-1).
   */
  public static int put(ByteBuffer record, int key, String value) {
    if (AgentLink.attributesOff()) {
      SIZE.set(record, ATTRS_DATA_SIZE, (short) 0);
      return -1;
    }
    int capacity = record.capacity() - ATTRS_DATA;
    int used = compactWithout(record, Math.min(size(record), capacity), key);
    int stored = -1;
    if (capacity - used >= ENTRY_HEADER) {
      int room = Math.min(MAX_VALUE_BYTES, capacity - used - ENTRY_HEADER);
      int at = ATTRS_DATA + used;
      int n = Utf8.encode(value, record, at + ENTRY_HEADER, room);
      record.put(at, (byte) key);
      record.put(at + 1, (byte) n);
      used += ENTRY_HEADER + n;
      stored = n;
    }
    SIZE.set(record, ATTRS_DATA_SIZE, (short) used);
    return stored;
  }

  /** Inside a rewrite: removes {@code key}'s entry (and a truncated tail); true if any went. */
  public static boolean remove(ByteBuffer record, int key) {
    int before = Math.min(size(record), record.capacity() - ATTRS_DATA);
    int after = compactWithout(record, before, key);
    SIZE.set(record, ATTRS_DATA_SIZE, (short) after);
    return after != before;
  }

  /** attrs-data-size as stored (may exceed the record if something else corrupted it). */
  static int size(ByteBuffer record) {
    return Short.toUnsignedInt((short) SIZE.get(record, ATTRS_DATA_SIZE));
  }

  // Drops every entry of key from attrs-data[0..used), and a truncated tail no reader could use,
  // moving later entries up. Returns the new used size. Entries only move towards the start, so the
  // overlapping copy is safe (and ByteBuffer's bulk put copies as if through a temporary anyway).
  private static int compactWithout(ByteBuffer record, int used, int key) {
    int r = 0;
    int w = 0;
    while (used - r >= ENTRY_HEADER) {
      int entry = ENTRY_HEADER + Byte.toUnsignedInt(record.get(ATTRS_DATA + r + 1));
      if (entry > used - r) break;
      if (Byte.toUnsignedInt(record.get(ATTRS_DATA + r)) != key) {
        if (w != r) record.put(ATTRS_DATA + w, record, ATTRS_DATA + r, entry);
        w += entry;
      }
      r += entry;
    }
    return w;
  }
}
