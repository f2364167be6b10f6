package io.vtctx.bench.jmh;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import io.vtctx.testing.DiscardingSpanProcessor;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * Virtual-thread workloads whose cost an agent on every transition changes. One operation is a
 * whole workload, so scores are microseconds per workload; {@code summarize.py} divides by the
 * transitions (mount + unmount pairs) or threads of one operation.
 *
 * <ul>
 *   <li>transition: one virtual thread calls {@code Thread.yield()} 10,000 times.
 *   <li>transitionWithSpan: the same with an OpenTelemetry span current for all the yields (with
 *       the shim, its ids are written into the record once; the yields then rewrite nothing).
 *   <li>parkUnpark: two virtual threads hand a turn to each other 10,000 times (park/unpark).
 *   <li>churn: start 1,000 virtual threads with an empty body, then join them all.
 *   <li>request: 100 requests, each a virtual thread that makes a new span current, calls a
 *       backend (a virtual thread behind a queue) and blocks until it answers (unmounts), does
 *       ~1 us of CPU work, then closes the scope and ends the span.
 * </ul>
 *
 * The agent configuration comes per fork from {@code run.py} (-agentpath and -Dvtctx.bench.*,
 * see {@link BenchConfig}); every fork runs on ONE carrier for stable numbers on a small machine.
 */
@State(org.openjdk.jmh.annotations.Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 4, time = 1)
@Fork(
    value = 1,
    jvmArgs = {
      "-Xms1g", "-Xmx1g", "-XX:+UseParallelGC", "-Djdk.virtualThreadScheduler.parallelism=1"
    })
public class VirtualThreadBenchmarks {
  public static final int YIELDS = 10_000;
  public static final int HANDOFFS = 10_000;
  public static final int CHURN_THREADS = 1_000;
  public static final int REQUESTS = 100;
  private static final int CPU_ROUNDS = 1_000; // ~1 us of xorshift per request

  private BenchConfig config;
  private ReaderProcess reader;
  private Tracer tracer;
  private Span outerSpan;
  private Backend backend;
  private Runnable yields;
  private Runnable yieldsWithSpan;
  private Runnable request;
  private final Runnable empty = () -> {};
  static volatile long sink;

  @Setup(Level.Trial)
  public void setUp(BenchmarkParams params) throws Exception {
    config = BenchConfig.fromSystemProperties();
    config.installShimIfAsked(); // before this JVM's first context operation
    tracer = DiscardingSpanProcessor.recordingTracer("bench");
    outerSpan = tracer.spanBuilder("outer").setNoParent().startSpan();
    config.checkAgentAndShim(tracer);
    backend = new Backend();
    yields = () -> {
      for (int i = 0; i < YIELDS; i++) Thread.yield();
    };
    yieldsWithSpan = () -> {
      try (Scope s = outerSpan.makeCurrent()) {
        for (int i = 0; i < YIELDS; i++) Thread.yield();
      }
    };
    request = () -> {
      Span span = tracer.spanBuilder("request").setNoParent().startSpan();
      try (Scope s = span.makeCurrent()) {
        long v = backend.call(span.getSpanContext().getSpanId().hashCode()); // unmounts
        for (int i = 0; i < CPU_ROUNDS; i++) {
          v ^= v << 13;
          v ^= v >>> 7;
          v ^= v << 17;
        }
        sink = v;
      } finally {
        span.end();
      }
    };
    reader = config.startReaderIfAsked(params.getBenchmark());
  }

  @TearDown(Level.Trial)
  public void tearDown() throws Exception {
    if (reader != null) reader.stop();
    backend.stop();
    outerSpan.end();
  }

  @Benchmark
  public void transition() throws InterruptedException {
    Thread.ofVirtual().start(yields).join();
  }

  @Benchmark
  public void transitionWithSpan() throws InterruptedException {
    Thread.ofVirtual().start(yieldsWithSpan).join();
  }

  @Benchmark
  public void parkUnpark() throws InterruptedException {
    new HandOff(HANDOFFS).run();
  }

  @Benchmark
  public void churn() throws InterruptedException {
    joinAll(CHURN_THREADS, empty);
  }

  @Benchmark
  public void request() throws InterruptedException {
    joinAll(REQUESTS, request);
  }

  private static void joinAll(int n, Runnable task) throws InterruptedException {
    Thread[] threads = new Thread[n];
    for (int i = 0; i < n; i++) threads[i] = Thread.ofVirtual().start(task);
    for (Thread t : threads) t.join();
  }
}
