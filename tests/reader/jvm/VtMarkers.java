import io.vtctx.internal.TestNatives;
import java.io.FileOutputStream;
import java.io.IOException;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.concurrent.SynchronousQueue;

/**
 * Marker writer for the reader's JVM test. Each of N virtual threads publishes its own context
 * into its OTEP 4947 record (through the agent's direct buffer, with the in-place protocol) and
 * then makes one write syscall of (BASE + marker) bytes to /dev/null; between markers it yields,
 * parks or hands off through a SynchronousQueue, so it unmounts and usually moves to another
 * carrier. The test maps a write's byte count back to the marker and checks that vtctx-reader
 * saw exactly the context published for it.
 *
 * <p>Context of marker m written by virtual thread i: trace_id = 76746374 %08x(i) %016x(m),
 * span_id = %016x(m ^ 0x5a5a5a5a5a5a5a5aL), trace_flags = 01.
 *
 * <p>Protocol: prints {"event":"ready",...}; waits for "go" on stdin; runs; prints
 * {"event":"done",...}; waits for "quit". Arguments: threads iterations [late]; with "late" the
 * agent is expected to be attached between "ready" and "go" (nothing touches it before).
 */
public final class VtMarkers {
  static final int BASE = 20000;

  public static void main(String[] args) throws Exception {
    final int threads = Integer.parseInt(args[0]);
    final int iterations = Integer.parseInt(args[1]);
    final boolean late = args.length > 2 && "late".equals(args[2]);
    if (!late) TargetProtocol.requireAgent("VtMarkers");
    final byte[] buf = new byte[BASE + threads * iterations];
    // Before a late attach the agent's natives are not linked: no record size to report yet.
    TargetProtocol protocol = new TargetProtocol();
    protocol.ready(",\"base\":" + BASE
        + (late ? "" : ",\"record_size\":" + TestNatives.recordSize()));
    if (late) TargetProtocol.requireAgent("VtMarkers");

    final SynchronousQueue<Integer> handoff = new SynchronousQueue<>();
    Thread[] vts = new Thread[threads];
    final Throwable[] failure = new Throwable[1];
    for (int t = 0; t < threads; t++) {
      final int index = t;
      vts[t] = Thread.ofVirtual().name("vt-" + t).start(() -> {
        try {
          run(index, iterations, buf, handoff);
        } catch (Throwable e) {
          synchronized (failure) {
            failure[0] = e;
          }
        }
      });
    }
    for (Thread vt : vts) vt.join();
    if (failure[0] != null) {
      failure[0].printStackTrace();
      System.exit(1);
    }
    protocol.done(",\"markers\":" + threads * iterations);
  }

  static void run(int index, int iterations, byte[] buf, SynchronousQueue<Integer> handoff)
      throws IOException, InterruptedException {
    ByteBuffer record = TestNatives.currentRecordBuffer();
    if (record == null) throw new IllegalStateException("no record for " + Thread.currentThread());
    try (FileOutputStream out = new FileOutputStream("/dev/null")) {
      for (int j = 0; j < iterations; j++) {
        final int marker = index * iterations + j;
        publish(record, index, marker);
        out.write(buf, 0, BASE + marker);  // one write(2) of BASE + marker bytes
        Unmount.between(j, marker, handoff);
      }
    }
  }

  /** In-place rewrite: valid=0, payload, valid=1, fenced so the stores stay in that order. */
  static void publish(ByteBuffer record, int index, int marker) {
    record.put(24, (byte) 0);
    VarHandle.storeStoreFence();
    record.putLong(0, 0x7674637400000000L | (index & 0xffffffffL));
    record.putLong(8, marker);
    record.putLong(16, marker ^ 0x5a5a5a5a5a5a5a5aL);
    record.put(25, (byte) 1);
    record.putShort(26, (short) 0);
    VarHandle.storeStoreFence();
    record.put(24, (byte) 1);
  }
}
