/**
 * CPU load for the reader's unwinding test: virtual threads spin at the end of a fixed call chain
 * run -> chain01 -> ... -> chain12 -> leaf, each method kept out of line by the driver
 * (-XX:CompileCommand=dontinline,VtDeepChain::*), so every sample's whole stack must show the
 * chain in order, above the virtual thread's entry frames.
 *
 * <p>Protocol (TargetProtocol): ready; "go"; runs MILLIS ms; done; "quit". Arguments: threads
 * millis.
 */
public final class VtDeepChain {
  static volatile long sink;

  public static void main(String[] args) throws Exception {
    final int threads = Integer.parseInt(args[0]);
    final long millis = Long.parseLong(args[1]);
    TargetProtocol protocol = new TargetProtocol();
    protocol.ready("");
    final long end = System.nanoTime() + millis * 1_000_000L;
    Thread[] vts = new Thread[threads];
    for (int t = 0; t < threads; t++) vts[t] = Thread.ofVirtual().start(() -> run(end));
    for (Thread vt : vts) vt.join();
    protocol.done("");
  }

  static void run(long end) {
    while (System.nanoTime() < end) {
      sink += chain01(2_000);
      Thread.yield();
    }
  }

  static long chain01(int n) { return chain02(n) + 1; }
  static long chain02(int n) { return chain03(n) + 1; }
  static long chain03(int n) { return chain04(n) + 1; }
  static long chain04(int n) { return chain05(n) + 1; }
  static long chain05(int n) { return chain06(n) + 1; }
  static long chain06(int n) { return chain07(n) + 1; }
  static long chain07(int n) { return chain08(n) + 1; }
  static long chain08(int n) { return chain09(n) + 1; }
  static long chain09(int n) { return chain10(n) + 1; }
  static long chain10(int n) { return chain11(n) + 1; }
  static long chain11(int n) { return chain12(n) + 1; }
  static long chain12(int n) { return leaf(n) + 1; }

  static long leaf(int n) {
    long x = 0;
    for (int i = 0; i < n; i++) x += (x ^ i) * 0x9E3779B97F4A7C15L;
    return x;
  }
}
