package io.vtctx.internal;

import java.nio.ByteBuffer;

/**
 * The JNI natives of the vtctx agent (libvtctx.so), which binds them to this class itself when
 * {@link AgentBootstrap#bindAgentNatives()} asks, if it serves this class loader; nothing is
 * loaded here. Unbound, every call throws {@link UnsatisfiedLinkError}, which callers treat as
 * "agent not loaded".
 *
 * <p>Package-private, and the package is not exported by the module {@code io.vtctx}: only the
 * shim calls these. The agent builds against the header {@code javac -h} generates from this file,
 * so a native renamed here fails the agent's build instead of looking like an absent agent.
 *
 * <p>Nothing here hands out a JDK internal or memory beyond the calling thread's own record, and
 * every argument is checked by the agent: whoever calls these gets at most what the public API
 * ({@code io.vtctx.ThreadContext}, {@code io.vtctx.ThreadAttributes}) gives.
 */
final class AgentNatives {
  private AgentNatives() {}

  /** True if the agent is loaded and publishing. */
  static native boolean isActive();

  /**
   * Address of the calling thread's OTEP 4947 record (virtual or platform thread), stable for the
   * thread's life; binds one on first use after a late attach. 0 if none.
   */
  static native long currentRecord();

  /**
   * A direct view of the calling thread's own record ({@link #recordSize()} bytes), or null: no
   * agent record, or a caller that is not a class of this package in this class's module (the
   * agent checks the calling frame, so a call through reflection or a method handle is refused).
   * Valid only while the calling thread lives: never let it escape the thread.
   */
  static native ByteBuffer currentRecordBuffer();

  /** Record size in bytes (64 by default). */
  static native int recordSize();

  /**
   * Registers an attribute key in the process context's {@code threadlocal.attribute_key_map}
   * (OTEP 4719), which is how readers name record attributes. Idempotent and safe from any thread:
   * a key keeps the index it first got. Cache the result: this takes a lock and may republish the
   * process context.
   *
   * @return the key's index (0..254), or -1 if it cannot be registered (agent inactive, null,
   *     empty or invalid key, more than 255 UTF-8 bytes, or 255 keys already registered); the
   *     agent logs the reason once
   */
  static native int registerAttributeKey(String key);

  /**
   * Sets attribute {@code keyIndex} of the calling thread's record to {@code value}, replacing its
   * previous value; {@code null} removes it. The value is stored as UTF-8, cut at a character
   * boundary to the room left in the record (and to 255 bytes). Does not change whether the record
   * is valid: attributes become visible to readers with the thread's trace context.
   *
   * @return the UTF-8 bytes stored (fewer than the value's UTF-8 length when truncated; 0 for a
   *     removal), or -1 if nothing was stored (agent inactive, index not registered, no record, or
   *     no room left; a previous value of the key is removed even then)
   */
  static native int setAttribute(int keyIndex, String value);

  /** The agent's live counters as a JSON object. */
  static native String statsJson();
}
