package io.vtctx.internal;

/**
 * Asks the agent for its natives through a forged bootstrap, then calls the forged AgentNatives'
 * natives (jvm.forged_natives): the bootstrap must return null (its zero), each native must throw
 * UnsatisfiedLinkError (nothing bound), and the JVM must never crash. Prints one line per call
 * and "forged natives: PASS".
 */
public final class ForgedNatives {
  private ForgedNatives() {}

  public static void main(String[] args) {
    int failures = 0;
    String bootstrap = AgentBootstrap.bindAgentNatives(0x41414141L, 0x42424242L);
    System.out.println("forged bootstrap returned " + bootstrap);
    if (bootstrap != null) failures++;
    failures += expectUnlinked("isActive", () -> AgentNatives.isActive());
    failures +=
        expectUnlinked(
            "registerAttributeKey(long)", () -> AgentNatives.registerAttributeKey(0x41414141L));
    failures += expectUnlinked("String recordSize()", () -> AgentNatives.recordSize().length());
    System.out.println("forged natives: " + (failures == 0 ? "PASS" : "FAIL"));
    System.exit(failures == 0 ? 0 : 1);
  }

  private static int expectUnlinked(String what, Runnable call) {
    try {
      call.run();
      System.out.println(what + ": linked and returned (FAIL)");
      return 1;
    } catch (UnsatisfiedLinkError expected) {
      System.out.println(what + ": UnsatisfiedLinkError");
      return 0;
    }
  }

  private interface Runnable {
    void run();
  }
}
