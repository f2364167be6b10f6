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
 * What a thread pays once, at its first publish, to get the view of its record (needs the agent):
 *
 * <ul>
 *   <li>lookupAddress: the agent's currentRecord() alone (JNI and a JVMTI thread-local lookup)
 *   <li>bindJniBuffer: the agent's currentRecordBuffer(), what ThreadRecord takes (JNI, the
 *       caller check, the lookup, NewDirectByteBuffer)
 * </ul>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(3)
public class BindBenchmark {
  @Setup
  public void setUp() {
    if (!AgentLink.active()) throw new IllegalStateException("run with -agentpath");
  }

  @Benchmark
  public long lookupAddress() {
    return AgentNatives.currentRecord();
  }

  @Benchmark
  public ByteBuffer bindJniBuffer() {
    return AgentNatives.currentRecordBuffer();
  }

}
