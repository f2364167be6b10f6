package io.vtctx.internal;

import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Attribute key names and their indexes in the process context's {@code
 * threadlocal.attribute_key_map}, cached in Java. The agent assigns indexes (append-only, at most
 * 255 keys); registering takes a lock there and may republish the process context, so each name is
 * asked once per process and the answer kept: an index never changes, and with the agent active a
 * refusal (-1: 255 keys already, key map full) is final too.
 *
 * <p>Nothing is asked or cached while the agent is absent: after a late attach, registration works.
 */
public final class AttributeKeys {
  private static final ConcurrentHashMap<String, Integer> INDEXES = new ConcurrentHashMap<>();
  // Every index below this is registered: indexes are dense and append-only, so the highest index
  // the agent ever confirmed proves all lower ones. Only grows.
  private static volatile int knownCount;

  private AttributeKeys() {}

  /**
   * The index of {@code key} (0..254), registering it if needed, or -1 (agent absent or inactive,
   * or the agent refused: 255 keys already, key map full).
   *
   * @throws NullPointerException if key is null
   * @throws IllegalArgumentException if key is empty or longer than 255 UTF-8 bytes (never
   *     registrable), with or without the agent
   */
  public static int register(String key) {
    check(key);
    if (!AgentLink.active()) return -1;
    Integer cached = INDEXES.get(key);
    if (cached != null) return cached;
    int index = AgentNatives.registerAttributeKey(key); // idempotent: racing threads agree
    Integer raced = INDEXES.putIfAbsent(key, index);
    if (raced != null) return raced;
    noteRegistered(index);
    return index;
  }

  /**
   * True if the agent confirmed {@code index} as a registered key (directly or by a higher one).
   */
  public static boolean isKnown(int index) {
    return index >= 0 && index < knownCount;
  }

  /** Records that the agent accepted {@code index} (a registration, or a native set). */
  static synchronized void noteRegistered(int index) {
    if (index >= knownCount) knownCount = index + 1;
  }

  private static void check(String key) {
    Objects.requireNonNull(key, "key");
    int bytes = Utf8.length(key, 255);
    if (bytes == 0 || bytes > 255) {
      throw new IllegalArgumentException(
          "an attribute key has 1 to 255 UTF-8 bytes, not " + (bytes > 255 ? "more" : "0"));
    }
  }
}
