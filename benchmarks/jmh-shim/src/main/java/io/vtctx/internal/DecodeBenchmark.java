package io.vtctx.internal;

import io.vtctx.bench.ShimBenchmark;
import java.util.concurrent.ThreadLocalRandom;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

/**
 * The id decode of a publish alone, without OpenTelemetry or the agent: {@link IdCache#load} of
 * ids it has not seen, from {@link #rotation} hex id sets in rotation (as ScopeBenchmark's newSpan
 * and newTrace), to split a publish's cost into decode and the rest.
 *
 * <ul>
 *   <li>newSpanId: a new span-id of a trace already cached (16 digits)
 *   <li>newTrace: new trace-id and span-id (48 digits)
 *   <li>baseline: the same rotation and loads of the strings, no decode
 * </ul>
 */
public class DecodeBenchmark extends ShimBenchmark {
  private static final int ROTATION = 1024;

  @Param({"1024"})
  public int rotation;

  /** true: OpenTelemetry's ids (known hex, 8 digits at a time); false: each char checked. */
  @Param({"true"})
  public boolean hexDigits;

  private final String[] traces = new String[ROTATION];
  private final String[] spans = new String[ROTATION];
  private final Object[] keys = new Object[ROTATION];
  private final IdCache ids = new IdCache();
  private String sharedTrace;
  private int next;

  @Setup
  public void setUp() {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    sharedTrace = hex(random.nextLong()) + hex(random.nextLong());
    for (int i = 0; i < ROTATION; i++) {
      traces[i] = hex(random.nextLong()) + hex(random.nextLong());
      spans[i] = hex(random.nextLong());
      keys[i] = new Object();
    }
    ids.load(new Object(), sharedTrace, spans[0], 1, false, null);
  }

  private static String hex(long v) {
    return String.format("%016x", v);
  }

  @Benchmark
  public long baseline() {
    int i = next++ & (rotation - 1);
    return (keys[i] == null ? 1 : 0) + traces[i].length() + spans[i].length();
  }

  @Benchmark
  public long newSpanId() {
    int i = next++ & (rotation - 1);
    // Every entry holds sharedTrace's ids (setUp loads it first): only the span-id is decoded.
    return ids.load(keys[i], sharedTrace, spans[i], 1, hexDigits, ids.recent()).span();
  }

  @Benchmark
  public long newTrace() {
    int i = next++ & (rotation - 1);
    return ids.load(keys[i], traces[i], spans[i], 1, hexDigits, null).span();
  }
}
