package io.vtctx.internal;

import java.nio.ByteBuffer;

/**
 * The JNI natives exported by the vtctx agent (libvtctx.so). HotSpot finds them in the agent
 * library itself, so nothing is loaded here; without the agent every call throws
 * {@link UnsatisfiedLinkError}, which callers treat as "agent not loaded".
 */
public final class AgentNatives {
  private AgentNatives() {}

  /** True if the agent is loaded and publishing. */
  public static native boolean isActive();

  /**
   * Address of the calling thread's OTEP 4947 record (virtual or platform thread), stable for the
   * thread's life; binds one on first use after a late attach. 0 if none.
   */
  public static native long currentRecord();

  /**
   * A direct view of the calling thread's record ({@link #recordSize()} bytes), or null. Valid
   * only while the calling thread lives: never let it escape the thread.
   */
  public static native ByteBuffer currentRecordBuffer();

  /** Record size in bytes (64 by default). */
  public static native int recordSize();

  /** The agent's live counters as a JSON object. */
  public static native String statsJson();
}
