package io.vtctx.bench;

import io.vtctx.ThreadContext;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The measurement every shim benchmark makes, set once: average nanoseconds per operation,
 * per-thread state, 3 warm-up and 5 measured iterations of 1 s in each of 3 forks. JMH reads these
 * annotations from the superclass (State is inherited; the run settings are looked up along the
 * class hierarchy), so a benchmark extends this class and declares only its own parameters.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(3)
public abstract class ShimBenchmark {
  /** For the benchmarks that measure the agent's paths: refuses to run without it. */
  protected static void requireAgent() {
    if (!ThreadContext.isAgentActive()) {
      throw new IllegalStateException("run with -agentpath:build/agent/libvtctx.so");
    }
  }
}
