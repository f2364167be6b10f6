import com.sun.management.OperatingSystemMXBean;
import io.vtctx.internal.TestNatives;
import java.lang.invoke.VarHandle;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Comparator;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.IntStream;
import java.util.zip.Deflater;

/**
 * Workloads whose stacks two profilers must agree on (asyncProfilerCompareTest.py): each runs on
 * virtual threads that burn CPU in a known shape and yield or park now and then, so that they
 * resume on other carriers. Every workload method is a static of this class or of a nested class,
 * so a stack's Java part from the first StackWorkloads frame on is the workload's own.
 *
 * <ul>
 *   <li>inlined: lambda -> Chain.a -> b -> c -> leaf, all small enough for C2 to inline;
 *   <li>megamorphic: one call site over four Shape implementations;
 *   <li>streams: IntStream with lambdas (JDK frames between ours);
 *   <li>comparator: Arrays.sort with a Comparator.comparing(..).thenComparing(..) chain of
 *       lambdas, which C2 inlines into TimSort (JDK frames and lambda frames between ours);
 *   <li>jni: Deflater.deflate (a JNI call into the JDK's libzip) under Java frames;
 *   <li>recursion: fib, 20 deep;
 *   <li>parking: bursts of work between LockSupport.parkNanos calls (hops carriers);
 *   <li>native: nativeBurn, a JNI call into a chain of C functions built without frame pointers
 *       (the library -Dvtctx.stackNatives names, tests/reader/jvm/native/stackNatives.c).
 * </ul>
 *
 * <p>Every virtual thread publishes the context trace_id = 776f726b6c6f6164 %016x(workload index),
 * span_id = %016x(thread index + 1) ("workload"), so that a sample's context tells that it was
 * taken in a workload's virtual thread, whatever its stack.
 *
 * <p>Protocol (TargetProtocol), once per workload named in the first argument (comma-separated),
 * in order: ready line {"workload":W}, "go", runs until the process has used MILLIS ms of CPU per
 * thread (at most 5 x MILLIS ms: window()), done line, "quit". Before its ready line each
 * workload runs -Dwarmup iterations per thread (3000), so that the JIT has compiled it when
 * sampling starts. Arguments: workloads threads millis; a workload may be written
 * NAME*FACTOR to run FACTOR times the warmup iterations and the millis. Needs the vtctx agent.
 */
public final class StackWorkloads {
  static volatile long sink;

  interface Shape {
    long area(long x);
  }

  static final class Square implements Shape {
    public long area(long x) {
      return x * x;
    }
  }

  static final class Rect implements Shape {
    public long area(long x) {
      return x * (x + 1);
    }
  }

  static final class Tri implements Shape {
    public long area(long x) {
      return x * (x + 2) / 2;
    }
  }

  static final class Circle implements Shape {
    public long area(long x) {
      // Kept within a long: a double-to-long conversion that overflows calls HotSpot's
      // d2l_fixup stub, which saves registers without a frame (no profiler unwinds it without
      // frame pointers); this workload is about the call site, not that stub.
      final long r = x & 0xffff;
      return (long) (3.14159 * r * r);
    }
  }

  static final class Chain {
    static long a(long x) {
      return b(x + 1) ^ x;
    }

    static long b(long x) {
      return c(x * 3) + 1;
    }

    static long c(long x) {
      return leaf(x >>> 1) - x;
    }

    static long leaf(long x) {
      long h = x;
      for (int i = 0; i < 64; i++) h = h * 0x9E3779B97F4A7C15L + i;
      return h;
    }
  }

  static final Shape[] SHAPES = {new Square(), new Rect(), new Tri(), new Circle()};

  static long megamorphic(long x) {
    long sum = 0;
    for (int i = 0; i < 256; i++) sum += SHAPES[(int) ((x + i) & 3)].area(x + i);
    return sum;
  }

  static long streams(long x) {
    return IntStream.range(0, 512).map(i -> (int) (i * x)).filter(i -> (i & 1) == 0).sum();
  }

  static final class Item {
    final int group;
    final long weight;

    Item(int group, long weight) {
      this.group = group;
      this.weight = weight;
    }

    int group() {
      return group;
    }

    long weight() {
      return weight;
    }
  }

  static final Comparator<Item> ORDER =
      Comparator.comparing(Item::group).thenComparing(Item::weight);

  static long comparator(long x) {
    Item[] items = new Item[256];
    for (int i = 0; i < items.length; i++) {
      items[i] = new Item((int) ((x + i * 0x9E37L) & 15), (x * 31 + i) ^ (i * 0x5DEECE66DL));
    }
    Arrays.sort(items, ORDER);
    return items[0].weight + items[items.length - 1].group;
  }

  static long deflate(Deflater deflater, byte[] in, byte[] out) {
    deflater.reset();
    deflater.setInput(in);
    deflater.finish();
    return deflater.deflate(out);
  }

  /** tests/reader/jvm/native/stackNatives.c: native code without frame pointers. */
  static native long nativeBurn(long x);

  static long fib(int n) {
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
  }

  static long inlined(long x) {
    java.util.function.LongUnaryOperator op = v -> Chain.a(v);
    long sum = 0;
    for (int i = 0; i < 64; i++) sum += op.applyAsLong(x + i);
    return sum;
  }

  /** One unit of the workload; a few microseconds to a millisecond of CPU. */
  static long step(String workload, long x, Deflater deflater, byte[] in, byte[] out) {
    switch (workload) {
      case "inlined":
        return inlined(x);
      case "megamorphic":
        return megamorphic(x);
      case "streams":
        return streams(x);
      case "comparator":
        return comparator(x);
      case "jni":
        return deflate(deflater, in, out);
      case "recursion":
        return fib(20);
      case "native":
        return nativeBurn(x);
      case "parking":
        long sum = 0;
        for (int i = 0; i < 64; i++) sum += inlined(x + i) + megamorphic(x + i);
        LockSupport.parkNanos(100_000);
        return sum;
      default:
        throw new IllegalArgumentException("unknown workload " + workload);
    }
  }

  static void publish(int workload, int thread) {
    ByteBuffer record = TestNatives.currentRecordBuffer();
    record.put(24, (byte) 0); // valid = 0 while the ids change
    VarHandle.storeStoreFence();
    record.putLong(0, 0x776f726b6c6f6164L);
    record.putLong(8, workload);
    record.putLong(16, thread + 1L);
    record.put(25, (byte) 1);
    record.putShort(26, (short) 0);
    VarHandle.storeStoreFence();
    record.put(24, (byte) 1);
  }

  /** True while a workload's sampling window lasts (window()). */
  static volatile boolean sampling;

  static void run(String workload, long iterations) {
    Deflater deflater = new Deflater(Deflater.BEST_COMPRESSION);
    byte[] in = new byte[16384];
    for (int i = 0; i < in.length; i++) in[i] = (byte) (i * 31 + (i >> 7));
    byte[] out = new byte[in.length * 2];
    long x = 1;
    for (long i = 0; i < iterations || sampling; i++) {
      x += step(workload, x, deflater, in, out);
      if ((i & 63) == 0) Thread.yield(); // hop carriers
    }
    deflater.end();
    sink += x;
  }

  /**
   * The sampling window: until the process has used `cpuNanos` of CPU, or `wallNanos` have passed.
   * A window of CPU time, not wall time: a cpu-clock profiler samples CPU time, and a loaded
   * machine gives the workload's threads less of it per second (a fixed wall-clock window then
   * gave both profilers a third of the samples, and their overlap sampling noise alone).
   */
  static void window(long cpuNanos, long wallNanos) throws InterruptedException {
    final OperatingSystemMXBean os =
        (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    final long cpu = os.getProcessCpuTime();
    final long wall = System.nanoTime();
    while (os.getProcessCpuTime() - cpu < cpuNanos && System.nanoTime() - wall < wallNanos) {
      Thread.sleep(10);
    }
  }

  static void onVirtualThreads(int threads, int workload, long iterations, String name,
      long cpuNanos, long wallNanos) throws InterruptedException {
    Thread[] vts = new Thread[threads];
    for (int t = 0; t < threads; t++) {
      final int thread = t;
      vts[t] =
          Thread.ofVirtual()
              .start(
                  () -> {
                    publish(workload, thread);
                    run(name, iterations);
                  });
    }
    if (cpuNanos > 0) window(cpuNanos, wallNanos);
    sampling = false;
    for (Thread vt : vts) vt.join();
  }

  public static void main(String[] args) throws Exception {
    final String[] workloads = args[0].split(",");
    final int threads = Integer.parseInt(args[1]);
    final long millis = Long.parseLong(args[2]);
    final long warmup = Long.parseLong(System.getProperty("warmup", "3000"));
    final String natives = System.getProperty("vtctx.stackNatives");
    if (natives != null) System.load(natives);
    TargetProtocol.requireAgent("StackWorkloads");
    TargetProtocol protocol = new TargetProtocol();
    for (int w = 0; w < workloads.length; w++) {
      final String[] spec = workloads[w].split("\\*");
      final String name = spec[0];
      final long factor = spec.length > 1 ? Long.parseLong(spec[1]) : 1;
      onVirtualThreads(threads, w, warmup * factor, name, 0, 0);
      protocol.ready(",\"workload\":\"" + name + "\"");
      // What the threads get in `millis` on idle cores, at most 5 times that long.
      final long window = millis * factor * 1_000_000L;
      sampling = true;
      onVirtualThreads(threads, w, 0, name, window * threads, 5 * window);
      protocol.done("");
    }
  }
}
