package io.vtctx.bench.jmh;

import io.vtctx.internal.TestNatives;
import java.util.Collection;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * Virtual-thread mounts per operation, counted by vtctx itself ({@code -prof
 * io.vtctx.bench.jmh.MountCountProfiler}), reported as the secondary metric "mounts". It lets
 * {@code summarize.py} divide by the transitions a workload really makes instead of by a guess.
 * Reports nothing in a JVM without libvtctx.so.
 */
public final class MountCountProfiler implements InternalProfiler {
  private static final Pattern MOUNTS = Pattern.compile("\"mounts\": (\\d+)");
  private long start = -1;

  @Override
  public String getDescription() {
    return "virtual-thread mounts per operation, from vtctx's counters";
  }

  @Override
  public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
    start = mounts();
  }

  @Override
  public Collection<? extends Result> afterIteration(
      BenchmarkParams benchmarkParams, IterationParams iterationParams, IterationResult result) {
    long ops = result.getMetadata().getMeasuredOps();
    long end = mounts();
    if (start < 0 || end < 0 || ops <= 0) return List.of();
    double perOp = (double) (end - start) / ops;
    return List.of(new ScalarResult("mounts", perOp, "mounts/op", AggregationPolicy.AVG));
  }

  /** vtctx's total mount count, or -1 without the agent. */
  private static long mounts() {
    try {
      Matcher m = MOUNTS.matcher(TestNatives.statsJson());
      return m.find() ? Long.parseLong(m.group(1)) : -1;
    } catch (UnsatisfiedLinkError e) {
      return -1;
    }
  }
}
