import io.vtctx.ThreadAttributes;
import io.vtctx.ThreadContext;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;

/**
 * Workload for the interoperability check (docs/interop.md): external OTEP 4947 readers must
 * report exactly these contexts. N virtual threads publish, through the public shim API only, a
 * known context and three attributes, then burn CPU in short slices separated by yield / park /
 * sleep (mostly yield, so carriers stay busy and a snapshot reader finds them mounted), so each
 * one unmounts and remounts many times, often on another carrier.
 *
 * <p>Virtual thread i: trace-id 0123456789abcdeffedcba98 %08x(0x76543210 + i), span-id
 * 11223344 %08x(0x55667788 + i), flags 01, attributes method=GET, route=/api/test/i, user=vt-i.
 * Thread 0 carries the public interop test vector (0123456789abcdeffedcba9876543210,
 * 1122334455667788). The attribute keys are registered at agent load
 * (attribute_keys=method|route|user) so readers that read the key map once see them.
 *
 * <p>Usage: InteropWorkload THREADS SECONDS [late] [runtime-key] [long]. With "late" it prints
 * "WAITING pid" and waits for the agent to be attached (jcmd JVMTI.agent_load). With
 * "runtime-key", a fourth key, phase, is registered 3 s after READY (a new process-context
 * publication that readers must pick up) and every thread then also sets phase=late. With "long"
 * (agent option record_size=640) route and user are 255-byte values, user in 2-byte UTF-8
 * characters. Prints "EXPECT i trace span route user" lines, then "READY pid", runs, then
 * "CARRIERS i n" (distinct carriers each thread ran on) and "DONE".
 */
public final class InteropWorkload {
  static volatile long sink;
  // UTF-8 whatever the locale: the EXPECT lines carry non-ASCII values ("long").
  static final java.io.PrintStream OUT = new java.io.PrintStream(
      new java.io.FileOutputStream(java.io.FileDescriptor.out), true,
      java.nio.charset.StandardCharsets.UTF_8);

  public static void main(String[] args) throws Exception {
    final int threads = Integer.parseInt(args[0]);
    final long seconds = Long.parseLong(args[1]);
    final java.util.List<String> flags = java.util.Arrays.asList(args).subList(2, args.length);
    final boolean runtimeKey = flags.contains("runtime-key");
    final boolean longValues = flags.contains("long");
    if (flags.contains("late")) {
      // The agent is attached later (jcmd JVMTI.agent_load): wait up to 60 s for it.
      OUT.println("WAITING " + ProcessHandle.current().pid());
      OUT.flush();
      for (int i = 0; i < 300 && !ThreadContext.isAgentActive(); i++) Thread.sleep(200);
    }
    if (!ThreadContext.isAgentActive()) {
      System.err.println("InteropWorkload: the vtctx agent is not active");
      System.exit(3);
    }
    final int method = ThreadAttributes.registerKey("method");
    final int route = ThreadAttributes.registerKey("route");
    final int user = ThreadAttributes.registerKey("user");
    if (method != 0 || route != 1 || user != 2) {
      System.err.println("InteropWorkload: start the agent with attribute_keys=method|route|user");
      System.exit(3);
    }
    for (int i = 0; i < threads; i++) {
      OUT.println("EXPECT " + i + " " + trace(i) + " " + span(i) + " GET "
          + route(i, longValues) + " " + user(i, longValues));
    }
    OUT.println("READY " + ProcessHandle.current().pid());
    OUT.flush();
    final long begin = System.nanoTime();
    final long end = begin + seconds * 1_000_000_000L;
    final long phaseAt = runtimeKey ? begin + 3_000_000_000L : Long.MAX_VALUE;
    final ConcurrentHashMap<Integer, Set<String>> carriers = new ConcurrentHashMap<>();
    Thread[] vts = new Thread[threads];
    for (int t = 0; t < threads; t++) {
      final int i = t;
      vts[t] = Thread.ofVirtual().name("interop-" + i).start(() -> {
        // Attributes first: attribute writes keep the record invalid until setHex makes the whole
        // context valid, so no reader can see these ids without their attributes.
        ThreadAttributes.set(method, "GET");
        if (ThreadAttributes.set(route, route(i, longValues)) < 0
            || ThreadAttributes.set(user, user(i, longValues)) < 0) {
          throw new IllegalStateException("attributes do not fit: record_size=640 needed");
        }
        ThreadContext.setHex(trace(i), span(i), 1);
        Set<String> seen = carriers.computeIfAbsent(i, k -> ConcurrentHashMap.newKeySet());
        long n = 0;
        boolean phaseSet = false;
        while (System.nanoTime() < end) {
          if (!phaseSet && System.nanoTime() >= phaseAt) {
            // Registered by whichever thread comes first (idempotent), after READY: readers learn
            // the name from a new process-context publication.
            int phase = ThreadAttributes.registerKey("phase");
            if (phase != 3) throw new IllegalStateException("phase key index " + phase);
            ThreadAttributes.set(phase, "late");
            phaseSet = true;
          }
          burn(2_000_000 + i);  // a few ms of CPU, so carriers are mostly mounted
          String self = Thread.currentThread().toString();  // ...@ForkJoinPool-1-worker-N
          seen.add(self.substring(self.indexOf('@') + 1));
          switch ((int) (n++ % 10)) {
            case 8 -> LockSupport.parkNanos(200_000);
            case 9 -> {
              try {
                Thread.sleep(1);
              } catch (InterruptedException e) {
                return;
              }
            }
            default -> Thread.yield();
          }
        }
      });
    }
    for (Thread vt : vts) vt.join();
    for (int i = 0; i < threads; i++) {
      OUT.println("CARRIERS " + i + " " + carriers.get(i).size() + " "
          + new TreeSet<>(carriers.get(i)));
    }
    OUT.println("DONE");
  }

  // "long": values of the maximum entry size (255 UTF-8 bytes), the user one in 2-byte characters,
  // 3 + 255 + 254 bytes of values (519 bytes of attrs-data): needs record_size=640.
  static String route(int i, boolean longValues) {
    String r = "/api/test/" + i;
    return longValues ? r + "/" + "x".repeat(255 - r.length() - 1) : r;
  }

  static String user(int i, boolean longValues) {
    String u = "vt-" + i;
    if (!longValues) return u;
    u += "-";
    while (u.getBytes(java.nio.charset.StandardCharsets.UTF_8).length + 2 <= 255) u += "\u00e9";
    return u;
  }

  static String trace(int i) {
    return String.format("0123456789abcdeffedcba98%08x", 0x76543210 + i);
  }

  static String span(int i) {
    return String.format("11223344%08x", 0x55667788 + i);
  }

  static void burn(int rounds) {
    long x = sink;
    for (int r = 0; r < rounds; r++) x = x * 6364136223846793005L + 1442695040888963407L;
    sink = x;
  }
}
