package io.vtctx.internal;

/**
 * Calls the forged AgentNatives' natives (jvm.forged_natives): each must throw
 * UnsatisfiedLinkError (nothing bound), never crash the JVM. Prints one line per call and
 * "forged natives: PASS".
 */
public final class ForgedNatives {
  private ForgedNatives() {}

  public static void main(String[] args) {
    int failures = 0;
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
