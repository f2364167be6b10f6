package io.vtctx.bench;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.vtctx.otel.VtctxContextStorage;
import io.vtctx.testing.DiscardingSpanProcessor;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;

/**
 * The per-thread cost of the cached view: a new virtual thread that makes one span current and
 * closes it, started and joined, without ("plain") and with the decorator ("vtctx"). With the shim
 * the thread's first publish takes one JNI call (currentRecordBuffer) and allocates its ThreadLocal
 * entry, view and caches.
 */
public class FirstUseBenchmark extends ShimBenchmark {
  @Param({"plain", "vtctx"})
  public String storage;

  private Runnable task;

  @Setup(Level.Trial)
  public void setUp() {
    if (storage.equals("vtctx")) VtctxContextStorage.install();
    Tracer tracer = DiscardingSpanProcessor.recordingTracer("bench");
    Span span = tracer.spanBuilder("s").setNoParent().startSpan();
    Context context = Context.root().with(span);
    task =
        () -> {
          try (io.opentelemetry.context.Scope s = context.makeCurrent()) {
            // one publish in, one out
          }
        };
  }

  @Benchmark
  public void virtualThreadWithOneScope() throws InterruptedException {
    Thread.ofVirtual().start(task).join();
  }
}
