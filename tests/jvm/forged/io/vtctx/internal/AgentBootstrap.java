package io.vtctx.internal;

/**
 * A forged bootstrap: the agent exports this native by name, so HotSpot links it however a class
 * of this name declares it. The agent's function must be harmless under this declaration (other
 * parameters, an object return type): it returns a 64-bit zero, read here as null.
 */
final class AgentBootstrap {
  private AgentBootstrap() {}

  static native String bindAgentNatives(long a, long b);
}
