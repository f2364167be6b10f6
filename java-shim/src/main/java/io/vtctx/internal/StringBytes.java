package io.vtctx.internal;

import java.lang.System.Logger.Level;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodType;

/**
 * Reads a String's own Latin-1 bytes, without the copy that every public String API makes: a new
 * trace's 48 hex digits are decoded straight from the id Strings of its SpanContext.
 *
 * <p>Why: copying the digits out (String.getBytes into a scratch array) measured ~14 % of a new
 * trace's scope change with hot ids: C2 copies short arrays with masked vector stores, and loading
 * words right after them stalls (a masked store does not forward to later loads).
 *
 * <p>How: the agent hands over one getter of {@code String.value} ({@link
 * AgentNatives#stringValueGetter}, package-private; JNI is not bound by module encapsulation), so
 * no module or package is opened to other code. The bytes are only read, never kept or exposed.
 * A String whose array is not one byte per char (UTF-16: non-Latin-1 text, or {@code
 * -XX:-CompactStrings}), a JDK without that field, {@code -Dio.vtctx.stringBytes=false} or an
 * absent agent: null, and callers copy the digits as before.
 */
final class StringBytes {
  private static final System.Logger LOG = System.getLogger("io.vtctx");
  private static final MethodHandle VALUE = valueGetter(); // (String)byte[]; null if unavailable

  private StringBytes() {}

  /** True if {@link #latin1} can return a String's bytes. */
  static boolean available() {
    return VALUE != null;
  }

  /**
   * The array that holds {@code s}'s chars one byte each (Latin-1), or null (see the class). The
   * caller must not write to it: it is the String's own.
   */
  static byte[] latin1(String s) {
    if (VALUE == null) return null;
    byte[] value;
    try {
      value = (byte[]) VALUE.invokeExact(s); // a constant getter: C2 compiles it to a field load
    } catch (Throwable e) {
      throw new AssertionError(e); // a field getter throws nothing for a non-null String
    }
    return value.length == s.length() ? value : null; // UTF-16 holds two bytes per char
  }

  private static MethodHandle valueGetter() {
    if (!Boolean.parseBoolean(System.getProperty("io.vtctx.stringBytes", "true"))) {
      LOG.log(Level.DEBUG, "vtctx: id digits are copied out of Strings: -Dio.vtctx.stringBytes");
      return null;
    }
    Object getter;
    try {
      getter = AgentNatives.stringValueGetter();
    } catch (LinkageError e) {
      return null; // agent absent: nothing is published, so nothing decodes ids for a record
    }
    if (getter instanceof MethodHandle h
        && h.type().equals(MethodType.methodType(byte[].class, String.class))) {
      return h;
    }
    LOG.log(
        Level.WARNING,
        "vtctx: id digits are copied out of Strings (slower new traces): the agent gave no"
            + " getter of String.value (inactive, or this JDK's String differs)");
    return null;
  }
}
