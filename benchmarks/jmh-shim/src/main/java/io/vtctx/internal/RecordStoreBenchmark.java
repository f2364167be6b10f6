package io.vtctx.internal;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One fenced rewrite of a record's span-id (valid=0, span-id, valid=1), the span-id alternating so
 * that every operation writes: through the thread's direct view ({@link RecordWriter}) and through
 * the pool segment ({@link PoolSegment}, what ThreadRecord uses on Java 22+). Needs the agent.
 *
 * <ul>
 *   <li>baseline: producing the alternating id only
 *   <li>viewWrite: begin, putSpanId, end on the view held in a field
 *   <li>segmentWrite: PoolSegment.write at the record's offset held in a field
 * </ul>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(3)
public class RecordStoreBenchmark {
  private static final long SPAN_A = 0x00f067aa0ba902b7L;
  private static final long SPAN_B = 0x00f067aa0ba902b8L;

  private long span = SPAN_A;
  private ByteBuffer view;
  private long offset;

  @Setup
  public void setUp() {
    if (!AgentLink.active()) throw new IllegalStateException("run with -agentpath");
    view = AgentNatives.currentRecordBuffer();
    offset = PoolSegment.offsetOf(AgentNatives.currentRecord());
    if (offset < 0) throw new IllegalStateException("pool segment unavailable (Java 22+ needed)");
  }

  private long nextSpan() {
    long s = span == SPAN_A ? SPAN_B : SPAN_A;
    span = s;
    return s;
  }

  @Benchmark
  public long baseline() {
    return nextSpan();
  }

  @Benchmark
  public void viewWrite() {
    RecordWriter.begin(view);
    RecordWriter.putSpanId(view, nextSpan());
    RecordWriter.end(view, 1);
  }

  @Benchmark
  public void segmentWrite() {
    PoolSegment.write(offset, false, 0, 0, nextSpan(), 1);
  }
}
