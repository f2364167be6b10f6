import java.io.FileOutputStream;
import java.io.IOException;
import java.util.concurrent.CountDownLatch;

/**
 * Virtual threads that never publish a context, for the reader's late-attach test. Started
 * without the agent: N virtual threads start and park. After "go" on stdin (the agent has been
 * attached meanwhile) each writes I markers to /dev/null, one write(2) of (BASE + marker) bytes
 * each, yielding between them (so it remounts, often on another carrier), and ends once all have
 * written. Their records are bound at their first mount after the attach and nobody ever writes
 * them.
 *
 * <p>Protocol: prints {"event":"ready",...} once the threads are parked; waits for "go"; runs;
 * prints {"event":"done",...}; waits for "quit".
 */
public final class VtNoContext {
  static final int BASE = 30000;

  public static void main(String[] args) throws Exception {
    final int threads = Integer.parseInt(args[0]);
    final int iterations = Integer.parseInt(args[1]);
    final byte[] buf = new byte[BASE + threads * iterations];
    final CountDownLatch parked = new CountDownLatch(threads);
    final CountDownLatch go = new CountDownLatch(1);
    final CountDownLatch written = new CountDownLatch(threads);
    Thread[] vts = new Thread[threads];
    for (int t = 0; t < threads; t++) {
      final int index = t;
      vts[t] = Thread.ofVirtual().name("vt-" + t).start(() -> {
        parked.countDown();
        try {
          go.await();
          run(index, iterations, buf);
          // No thread ends (and returns its record) before all have written.
          written.countDown();
          written.await();
        } catch (InterruptedException | IOException e) {
          throw new RuntimeException(e);
        }
      });
    }
    parked.await();
    TargetProtocol protocol = new TargetProtocol();
    protocol.ready(",\"base\":" + BASE);
    go.countDown();
    for (Thread vt : vts) vt.join();
    protocol.done(",\"markers\":" + threads * iterations);
  }

  static void run(int index, int iterations, byte[] buf) throws IOException {
    try (FileOutputStream out = new FileOutputStream("/dev/null")) {
      for (int j = 0; j < iterations; j++) {
        out.write(buf, 0, BASE + index * iterations + j);
        Thread.yield();
      }
    }
  }
}
