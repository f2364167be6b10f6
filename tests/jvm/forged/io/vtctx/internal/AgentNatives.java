package io.vtctx.internal;

/**
 * Not the shim's: a class of the same name on the class path whose natives are declared with the
 * wrong types, as any code could write it. Bound by name, each call would hand the agent a value
 * of another type (a long where a jstring is expected, an int taken for an object reference) and
 * crash the JVM; the agent binds its natives only with their exact signatures, so none is.
 */
final class AgentNatives {
  private AgentNatives() {}

  static native boolean isActive();

  static native int registerAttributeKey(long notAString);

  static native String recordSize();
}
