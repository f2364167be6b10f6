package io.vtctx.internal;

import java.nio.ByteBuffer;

/**
 * The agent's natives for test programs and benchmarks outside this package ({@link AgentNatives}
 * is package-private). Compiled only into test and benchmark class paths, never into the shim's
 * jar. That this works at all (a class-path jar that declares a class in io.vtctx.internal) is the
 * class path's limit; on the module path no other jar can declare classes in the shim's packages.
 */
public final class TestNatives {
  private TestNatives() {}

  // As the shim does before its first native (AgentLink): the agent binds AgentNatives when asked.
  static {
    try {
      AgentBootstrap.bindAgentNatives();
    } catch (UnsatisfiedLinkError noAgent) {
      // The natives below throw it too.
    }
  }

  public static boolean isActive() {
    return AgentNatives.isActive();
  }

  public static long currentRecord() {
    return AgentNatives.currentRecord();
  }

  public static ByteBuffer currentRecordBuffer() {
    return AgentNatives.currentRecordBuffer();
  }

  public static int recordSize() {
    return AgentNatives.recordSize();
  }

  public static int registerAttributeKey(String key) {
    return AgentNatives.registerAttributeKey(key);
  }

  public static int setAttribute(int keyIndex, String value) {
    return AgentNatives.setAttribute(keyIndex, value);
  }

  public static String statsJson() {
    return AgentNatives.statsJson();
  }
}
