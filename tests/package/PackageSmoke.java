import io.vtctx.ThreadContext;

/**
 * A JVM for the installed-package smoke test, using nothing but the installed shim's public API:
 * 4 virtual threads each publish trace 0x7061636b ("pack") + its index and burn CPU, yielding
 * now and then so they hop carriers. Prints "READY <pid>" once all four have published, and runs
 * until stdin closes.
 */
public final class PackageSmoke {
  static volatile long sink;

  public static void main(String[] args) throws Exception {
    if (!ThreadContext.isAgentActive()) {
      System.out.println("FAIL: the vtctx agent is not active");
      System.exit(3);
    }
    java.util.concurrent.CountDownLatch published = new java.util.concurrent.CountDownLatch(4);
    for (int i = 0; i < 4; i++) {
      final long id = i;
      Thread.ofVirtual()
          .start(
              () -> {
                ThreadContext.set(0x7061636b00000000L | id, 0, id + 1, 1);
                published.countDown();
                // Spin only once all four have published: a yielding virtual thread goes back to
                // its carrier's own queue and runs again before threads not yet started, so two
                // spinners would keep the others from ever publishing on 2 carriers.
                awaitUninterruptibly(published);
                for (long n = 0; ; n++) {
                  sink += n * 31;
                  if (n % 1_000_000 == 0) Thread.yield();
                }
              });
    }
    published.await();
    System.out.println("READY " + ProcessHandle.current().pid());
    System.out.flush();
    while (System.in.read() >= 0) {}
    System.exit(0);
  }

  static void awaitUninterruptibly(java.util.concurrent.CountDownLatch latch) {
    while (true) {
      try {
        latch.await();
        return;
      } catch (InterruptedException e) {
        // not interrupted in this program; keep waiting
      }
    }
  }
}
