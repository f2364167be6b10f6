package io.vtctx.demo;

/**
 * Serialises a note as JSON. It escapes every non-ASCII character as a {@code \\uXXXX} sequence
 * with {@link String#format}: correct, and harmless for the usual short note, but for a note of a
 * few MB of multilingual text it is where the slow requests spend their CPU. That is the bug the
 * demo's span-filtered flame graph finds.
 */
final class NoteJson {
  private NoteJson() {}

  static String write(Note note) {
    StringBuilder out = new StringBuilder(note.body().length() + 64);
    out.append("{\"id\":").append(note.id()).append(",\"title\":");
    writeString(out, note.title());
    out.append(",\"body\":");
    writeString(out, note.body());
    return out.append('}').toString();
  }

  static void writeString(StringBuilder out, String s) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '"' || c == '\\') {
        out.append('\\').append(c);
      } else if (c >= 0x20 && c < 0x7f) {
        out.append(c);
      } else {
        out.append(String.format("\\u%04x", (int) c));
      }
    }
    out.append('"');
  }
}
