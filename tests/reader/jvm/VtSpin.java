import io.vtctx.internal.TestNatives;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;

/**
 * CPU load for the reader's JVM profile test: N virtual threads each publish a context and burn
 * CPU, yielding now and then so they hop carriers. Even-numbered threads burn in spinEven(), odd
 * ones in spinOdd() (kept out of line with -XX:CompileCommand=dontinline), so a folded stack's
 * leaf method tells which kind of thread was on CPU and the trace above it must agree.
 *
 * <p>Context of thread i: trace_id = 7370696e %08x(i) 0000000000000000 ("spin"), span_id =
 * %016x(i + 1), flags 01.
 *
 * <p>Protocol: prints {"event":"ready",...}; waits for "go"; runs MILLIS ms; prints
 * {"event":"done"}; waits for "quit". Arguments: threads millis [late]; with "late" the agent is
 * expected to be attached between "ready" and "go" (nothing touches it before).
 */
public final class VtSpin {
  static volatile long sink;

  public static void main(String[] args) throws Exception {
    final int threads = Integer.parseInt(args[0]);
    final long millis = Long.parseLong(args[1]);
    final boolean late = args.length > 2 && "late".equals(args[2]);
    if (!late) TargetProtocol.requireAgent("VtSpin");
    TargetProtocol protocol = new TargetProtocol();
    protocol.ready("");
    if (late) TargetProtocol.requireAgent("VtSpin");
    final long end = System.nanoTime() + millis * 1_000_000L;
    Thread[] vts = new Thread[threads];
    for (int t = 0; t < threads; t++) {
      final int index = t;
      vts[t] = Thread.ofVirtual().start(() -> run(index, end));
    }
    for (Thread vt : vts) vt.join();
    protocol.done("");
  }

  static void run(int index, long end) {
    ByteBuffer record = TestNatives.currentRecordBuffer();
    record.put(24, (byte) 0);
    VarHandle.storeStoreFence();
    record.putLong(0, 0x7370696e00000000L | index);
    record.putLong(8, 0L);
    record.putLong(16, index + 1L);
    record.put(25, (byte) 1);
    record.putShort(26, (short) 0);
    VarHandle.storeStoreFence();
    record.put(24, (byte) 1);
    while (System.nanoTime() < end) {
      sink += (index % 2 == 0) ? spinEven(200_000) : spinOdd(200_000);
      Thread.yield();
    }
  }

  static long spinEven(int n) {
    long x = 0;
    for (int i = 0; i < n; i++) x += (x ^ i) * 0x9E3779B97F4A7C15L;
    return x;
  }

  static long spinOdd(int n) {
    long x = 1;
    for (int i = 0; i < n; i++) x += (x ^ i) * 0xC2B2AE3D27D4EB4FL;
    return x;
  }
}
