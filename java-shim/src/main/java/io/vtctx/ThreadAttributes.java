package io.vtctx;

import io.vtctx.internal.AttributeKeys;
import io.vtctx.internal.ThreadRecord;

/**
 * Attributes of the calling thread's OTEP 4947 record (its attrs-data): key-value pairs that
 * readers name through the process context's {@code threadlocal.attribute_key_map}, e.g. {@code
 * http.route=/users/{id}}.
 *
 * <pre>{@code
 * int route = ThreadAttributes.registerKey("http.route"); // once; -1 without the agent
 * ThreadAttributes.set(route, "/users/{id}");             // this thread's record only
 * ThreadAttributes.remove(route);
 * }</pre>
 *
 * <p>Like {@link ThreadContext}, everything acts on the calling thread's own record (virtual or
 * platform) and stays with it across parks, remounts and carrier changes. Readers see attributes
 * only together with a valid trace context ({@link ThreadContext#set} or the OpenTelemetry
 * storage): attribute writes never change whether the record is valid.
 *
 * <p>Values are stored as UTF-8 (unpaired surrogates as U+FFFD) and cut at a character boundary to
 * what fits: at most 255 bytes, and all entries together within the record ({@code record_size -
 * 28} bytes: 36 with the default 64-byte records, up to 612 with {@code record_size=640}). A key
 * has one entry; setting it again replaces the value (the entry moves to the end).
 *
 * <p>Without the agent, {@link #registerKey} returns -1 and {@link #set} with -1 (or any index)
 * does nothing and returns -1. Keys registered while the agent is absent are not remembered: with a
 * late attach, register again (or use the OpenTelemetry storage's configured keys, which it
 * registers by itself once the agent is there).
 */
public final class ThreadAttributes {
  private ThreadAttributes() {}

  /**
   * Registers {@code key} in the process context's attribute key map (append-only: a key keeps its
   * first index for the life of the process; at most 255 keys) and returns its index. The answer is
   * cached in Java, so calling this again is a map lookup; still, keep the index.
   *
   * @return the index (0..254), or -1 if the agent is absent or refuses (255 keys already)
   * @throws NullPointerException if key is null
   * @throws IllegalArgumentException if key is empty or has more than 255 UTF-8 bytes
   */
  public static int registerKey(String key) {
    return AttributeKeys.register(key);
  }

  /**
   * Sets attribute {@code keyIndex} of the calling thread's record to {@code value}, replacing its
   * previous value; {@code null} removes it.
   *
   * @return the UTF-8 bytes stored (fewer than the value's UTF-8 length when truncated; 0 for a
   *     removal), or -1 if nothing was stored: no agent, {@code keyIndex} not a registered index,
   *     or no room left in the record (the key's previous value is removed even then)
   */
  public static int set(int keyIndex, String value) {
    if (keyIndex < 0) return -1;
    ThreadRecord r = ThreadRecord.current();
    return r != null ? r.setAttribute(keyIndex, value) : -1;
  }

  /** Removes attribute {@code keyIndex} from the calling thread's record, if it is there. */
  public static void remove(int keyIndex) {
    set(keyIndex, null);
  }
}
