package io.vtctx.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The shim's writers against the golden vectors of protocol/vectors/ (docs/protocol.md), the same
 * files the C++ and Python tests read: {@link RecordWriter} and {@link AttributeWriter} produce
 * exactly the bytes of every {@code write} vector, and {@link Utf8#encode} those of every {@code
 * utf16} vector of a whole string. The directory comes from the system property
 * vtctx.test.vectors (set by the pom).
 */
class ShimVectorsTest {
  private static final HexFormat HEX = HexFormat.of();

  private record Vector(String name, Map<String, String> fields) {
    String field(String key) {
      String v = fields.get(key);
      if (v == null) throw new IllegalArgumentException(name + ": no field " + key);
      return v;
    }

    byte[] bytes(String key) {
      return fromHex(field(key));
    }
  }

  private static byte[] fromHex(String hex) {
    return hex.equals("-") ? new byte[0] : HEX.parseHex(hex);
  }

  private static String toHex(byte[] bytes) {
    return bytes.length == 0 ? "-" : HEX.formatHex(bytes);
  }

  private static List<String> list(String text, String sep) {
    return text.equals("-") ? List.of() : Arrays.asList(text.split(sep, -1));
  }

  /** The vectors of {@code kind} in protocol/vectors/{@code file}; fails if there are none. */
  private static List<Vector> read(String file, String kind) throws IOException {
    String dir = System.getProperty("vtctx.test.vectors");
    if (dir == null) throw new IllegalStateException("vtctx.test.vectors is not set");
    List<Vector> out = new ArrayList<>();
    for (String line : Files.readAllLines(Path.of(dir, file), StandardCharsets.UTF_8)) {
      if (line.isEmpty() || line.startsWith("#")) continue;
      String[] words = line.trim().split("\\s+");
      if (!words[0].equals(kind)) continue;
      Map<String, String> fields = new HashMap<>();
      for (int i = 2; i < words.length; i++) {
        int eq = words[i].indexOf('=');
        fields.put(words[i].substring(0, eq), words[i].substring(eq + 1));
      }
      out.add(new Vector(words[1], fields));
    }
    assertFalse(out.isEmpty(), "no '" + kind + "' vectors in " + file);
    return out;
  }

  private static long bigEndianLong(byte[] bytes, int at) {
    return ByteBuffer.wrap(bytes, at, 8).getLong();
  }

  @Test
  void recordAndAttributeWritersProduceTheBytes() throws IOException {
    for (Vector v : read("records.vec", "write")) {
      int size = Integer.parseInt(v.field("size"));
      ByteBuffer record = ByteBuffer.allocateDirect(size + 64).alignedSlice(64).slice(0, size);
      List<String> stored = new ArrayList<>();
      for (String op : list(v.field("ops"), ",")) {
        List<String> part = list(op, ":");
        switch (part.get(0)) {
          case "ctx" -> {
            byte[] trace = fromHex(part.get(1));
            byte[] span = fromHex(part.get(2));
            RecordWriter.write(
                record,
                bigEndianLong(trace, 0),
                bigEndianLong(trace, 8),
                bigEndianLong(span, 0),
                Integer.parseInt(part.get(3), 16));
          }
          case "set" -> {
            String value = new String(fromHex(part.get(2)), StandardCharsets.UTF_8);
            stored.add(Integer.toString(AttributeWriter.set(record, key(part), value)));
          }
          case "del" -> AttributeWriter.set(record, key(part), null);
          default -> throw new IllegalArgumentException(v.name() + ": op " + op);
        }
      }
      assertEquals(list(v.field("stored"), ","), stored, v.name());
      byte[] result = new byte[AttributeWriter.ATTRS_DATA + AttributeWriter.size(record)];
      record.get(0, result);
      assertEquals(v.field("result"), toHex(result), v.name());
    }
  }

  private static int key(List<String> part) {
    return Integer.parseInt(part.get(1));
  }

  /** Java strings are whole: only the vectors of a whole string (more=0) apply. */
  @Test
  void utf16ToUtf8() throws IOException {
    int checked = 0;
    for (Vector v : read("utf8.vec", "utf16")) {
      if (!v.field("more").equals("0")) continue;
      byte[] units = v.bytes("units");
      StringBuilder s = new StringBuilder();
      for (int i = 0; i < units.length; i += 2) {
        s.append((char) (((units[i] & 0xff) << 8) | (units[i + 1] & 0xff)));
      }
      int max = Integer.parseInt(v.field("max"));
      ByteBuffer out = ByteBuffer.allocate(max);
      int n = Utf8.encode(s.toString(), out, 0, max);
      byte[] bytes = new byte[n];
      out.get(0, bytes);
      assertEquals(v.field("bytes"), toHex(bytes), v.name());
      checked++;
    }
    assertFalse(checked == 0, "no whole-string utf16 vectors");
  }
}
