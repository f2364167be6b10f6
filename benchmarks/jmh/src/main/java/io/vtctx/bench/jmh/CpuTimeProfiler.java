package io.vtctx.bench.jmh;

import com.sun.management.OperatingSystemMXBean;
import java.lang.management.ManagementFactory;
import java.util.Collection;
import java.util.List;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * Process CPU time per operation ({@code -prof io.vtctx.bench.jmh.CpuTimeProfiler}), reported as
 * the secondary metric "cpu" in us/op. On a small machine shared with other work, wall time
 * includes the time this JVM waits for a core; CPU time counts only what it ran (all its threads:
 * the carrier, JIT and GC). The JVM reads it at clock-tick granularity (10 ms here), so it is
 * coarse per iteration and meaningful only over iterations of a second or more.
 */
public final class CpuTimeProfiler implements InternalProfiler {
  private final OperatingSystemMXBean os =
      (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
  private long startNs;

  @Override
  public String getDescription() {
    return "process CPU time per operation";
  }

  @Override
  public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
    startNs = os.getProcessCpuTime();
  }

  @Override
  public Collection<? extends Result> afterIteration(
      BenchmarkParams benchmarkParams, IterationParams iterationParams, IterationResult result) {
    long cpuNs = os.getProcessCpuTime() - startNs;
    long ops = result.getMetadata().getMeasuredOps();
    if (ops <= 0) return List.of();
    return List.of(new ScalarResult("cpu", cpuNs / 1e3 / ops, "us/op", AggregationPolicy.AVG));
  }
}
