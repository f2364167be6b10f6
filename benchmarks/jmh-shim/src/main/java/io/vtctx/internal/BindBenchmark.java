package io.vtctx.internal;

import io.vtctx.bench.ShimBenchmark;
import java.nio.ByteBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Setup;

/**
 * What a thread pays once, at its first publish, to get the view of its record (needs the agent):
 *
 * <ul>
 *   <li>lookupAddress: the agent's currentRecord() alone (JNI and a JVMTI thread-local lookup)
 *   <li>bindJniBuffer: the agent's currentRecordBuffer(), what ThreadRecord takes (JNI, the
 *       caller check, the lookup, NewDirectByteBuffer)
 * </ul>
 */
public class BindBenchmark extends ShimBenchmark {
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
