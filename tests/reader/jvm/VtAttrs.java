import io.vtctx.internal.TestNatives;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.SynchronousQueue;

/**
 * Attribute writer for the reader's JVM attribute test. The agent is loaded with
 * attribute_keys=http.route|user.id; more keys (late.0 .. late.L-1) are registered only after "go",
 * by registrar threads (platform and virtual, all at once) and by the marker threads themselves,
 * while vtctx-reader is already running. Each of N virtual threads then, per marker: publishes its
 * trace context in its record (as VtMarkers does), sets three attributes through the agent's
 * natives, and writes (BASE + marker) bytes to /dev/null; between markers it yields, parks or hands
 * off, so it unmounts and usually moves to another carrier.
 *
 * <p>Marker m of virtual thread i: trace/span ids as in VtMarkers, and attributes
 * http.route = /api/{i%7}/"q"\{m}, user.id = usér-{i}, late.{m%L} = v{m}.
 *
 * <p>Protocol: prints {"event":"ready",...}; waits for "go"; runs; prints {"event":"done",
 * "markers":N*I,"keys":{key: index, ...}}; waits for "quit".
 */
public final class VtAttrs {
  static final int BASE = 30000;

  public static void main(String[] args) throws Exception {
    final int threads = Integer.parseInt(args[0]);
    final int iterations = Integer.parseInt(args[1]);
    final int lateKeys = Integer.parseInt(args[2]);
    TargetProtocol.requireAgent("VtAttrs");
    final Map<String, Integer> keys = new ConcurrentHashMap<>();
    for (String k : new String[] {"http.route", "user.id"}) keys.put(k, register(k));
    final byte[] buf = new byte[BASE + threads * iterations];
    TargetProtocol protocol = new TargetProtocol();
    protocol.ready(",\"base\":" + BASE + ",\"record_size\":" + TestNatives.recordSize());

    final CountDownLatch start = new CountDownLatch(1);
    final Throwable[] failure = new Throwable[1];
    List<Thread> all = new ArrayList<>();
    // Registrars: 4 platform + 4 virtual threads register every late key in their own order.
    for (int r = 0; r < 8; r++) {
      final int seed = r;
      Runnable registrar = () -> {
        try {
          List<Integer> order = new ArrayList<>();
          for (int k = 0; k < lateKeys; k++) order.add(k);
          Collections.shuffle(order, new Random(seed));
          start.await();
          for (int k : order) {
            int index = register("late." + k);
            Integer other = keys.putIfAbsent("late." + k, index);
            if (other != null && other != index) throw new IllegalStateException("late." + k);
          }
        } catch (Throwable e) {
          fail(failure, e);
        }
      };
      all.add(r % 2 == 0 ? Thread.ofPlatform().start(registrar)
                         : Thread.ofVirtual().start(registrar));
    }
    final SynchronousQueue<Integer> handoff = new SynchronousQueue<>();
    for (int t = 0; t < threads; t++) {
      final int index = t;
      all.add(Thread.ofVirtual().name("vt-" + t).start(() -> {
        try {
          start.await();
          run(index, iterations, lateKeys, keys, buf, handoff);
        } catch (Throwable e) {
          fail(failure, e);
        }
      }));
    }
    start.countDown();
    for (Thread th : all) th.join();
    if (failure[0] != null) {
      failure[0].printStackTrace();
      System.exit(1);
    }
    StringBuilder done = new StringBuilder(",\"markers\":")
        .append(threads * iterations).append(",\"keys\":{");
    String sep = "";
    for (Map.Entry<String, Integer> e : new TreeMap<>(keys).entrySet()) {
      done.append(sep).append('"').append(e.getKey()).append("\":").append(e.getValue());
      sep = ",";
    }
    protocol.done(done.append("}").toString());
  }

  static void fail(Throwable[] failure, Throwable e) {
    synchronized (failure) {
      if (failure[0] == null) failure[0] = e;
    }
  }

  static int register(String key) {
    int index = TestNatives.registerAttributeKey(key);
    if (index < 0) throw new IllegalStateException("registerAttributeKey(" + key + ") failed");
    return index;
  }

  static String route(int index, int marker) {
    return "/api/" + (index % 7) + "/\"q\"\\" + marker;
  }

  static void set(int keyIndex, String value) {
    int stored = TestNatives.setAttribute(keyIndex, value);
    if (stored < 0) throw new IllegalStateException("setAttribute(" + keyIndex + ") failed");
  }

  static void run(int index, int iterations, int lateKeys, Map<String, Integer> keys, byte[] buf,
      SynchronousQueue<Integer> handoff) throws IOException, InterruptedException {
    ByteBuffer record = TestNatives.currentRecordBuffer();
    if (record == null) throw new IllegalStateException("no record for " + Thread.currentThread());
    final int routeKey = keys.get("http.route");
    final int userKey = keys.get("user.id");
    try (FileOutputStream out = new FileOutputStream("/dev/null")) {
      for (int j = 0; j < iterations; j++) {
        final int marker = index * iterations + j;
        VtMarkers.publish(record, index, marker);  // ids; clears the attributes
        set(routeKey, route(index, marker));
        set(userKey, "us\u00e9r-" + index);
        // A late key: registered here if no registrar got to it yet (idempotent).
        set(register("late." + (marker % lateKeys)), "v" + marker);
        out.write(buf, 0, BASE + marker);  // one write(2) of BASE + marker bytes
        Unmount.between(j, marker, handoff);
      }
    }
  }
}
