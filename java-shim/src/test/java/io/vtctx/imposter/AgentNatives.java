package io.vtctx.imposter;

import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Not the shim's class: {@code NativesAbuseTest} renames it to io.vtctx.internal.AgentNatives and
 * defines it in a class loader of its own, as a hostile jar would, declaring the natives the agent
 * once exported (a window over the whole record pool, a window over any record, a getter of
 * String.value) next to today's. JNI binds natives by class name, whatever the loader. Uses no
 * nested class or lambda, so that the rename touches nothing else.
 */
public final class AgentNatives {
  private AgentNatives() {}

  static native ByteBuffer recordPoolWindow();

  static native ByteBuffer recordWindow(long record);

  static native Object stringValueGetter();

  static native ByteBuffer currentRecordBuffer();

  static native long currentRecord();

  /**
   * Calls each native from this class (the frame the agent sees as the caller), {@code
   * foreignRecord} being another thread's record: name to result, or to what it threw.
   */
  public static Map<String, Object> callAll(long foreignRecord) {
    Map<String, Object> results = new LinkedHashMap<>();
    for (String name :
        new String[] {
          "recordPoolWindow", "recordWindow", "stringValueGetter", "currentRecordBuffer",
          "currentRecord"
        }) {
      try {
        results.put(name, call(name, foreignRecord));
      } catch (Throwable e) {
        results.put(name, e);
      }
    }
    return results;
  }

  private static Object call(String name, long foreignRecord) {
    return switch (name) {
      case "recordPoolWindow" -> recordPoolWindow();
      case "recordWindow" -> recordWindow(foreignRecord);
      case "stringValueGetter" -> stringValueGetter();
      case "currentRecordBuffer" -> currentRecordBuffer();
      case "currentRecord" -> currentRecord();
      default -> throw new IllegalArgumentException(name);
    };
  }
}
