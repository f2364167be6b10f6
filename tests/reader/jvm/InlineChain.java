/**
 * CPU load for the reader's inlined-frames test: one virtual thread spins in lambda -> a -> b ->
 * c -> leaf, each small enough for C2 to inline into the lambda's compiled loop; leaf loops itself
 * (its loop's safepoint poll is a PcDesc in leaf's own scope), so a sampled pc in it lies before a
 * PcDesc whose scope chain is leaf, c, b, a, the lambda.
 *
 * <p>Protocol: the virtual thread spins from the start (the driver waits for the lambda's C2
 * code); prints {"event":"ready",...}; waits for "go"; spins MILLIS ms more; prints
 * {"event":"done"}; waits for "quit". Argument: millis. Needs no agent.
 */
public final class InlineChain {
  static volatile boolean stop;
  static volatile long sink;

  public static void main(String[] args) throws Exception {
    final long millis = Long.parseLong(args[0]);
    Thread vt =
        Thread.ofVirtual()
            .start(
                () -> {
                  long x = 0;
                  while (!stop) x += a(x);
                  sink = x;
                });
    TargetProtocol protocol = new TargetProtocol();
    protocol.ready("");
    Thread.sleep(millis);
    stop = true;
    vt.join();
    protocol.done("");
  }

  static long a(long x) {
    return b(x) + 1;
  }

  static long b(long x) {
    return c(x) ^ 3;
  }

  static long c(long x) {
    return leaf(x, 1000) * 5;
  }

  static long leaf(long x, int n) {
    for (int i = 0; i < n; i++) x += (x ^ i) * 0x9E3779B97F4A7C15L;
    return x;
  }
}
