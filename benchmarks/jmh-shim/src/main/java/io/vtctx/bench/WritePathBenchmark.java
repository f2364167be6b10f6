package io.vtctx.bench;

import io.vtctx.ThreadContext;
import io.vtctx.internal.RecordWriter;
import io.vtctx.internal.TestNatives;
import io.vtctx.test.CarrierProbe;
import java.nio.ByteBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Setup;

/**
 * The candidate write paths for one publish of a changed context (the span-id alternates, so every
 * operation really rewrites the record). Needs the agent (-agentpath) and, for the JNI candidates,
 * the carrier probe library (-Djava.library.path=build/tests/jvm), whose write() is exactly "one
 * JNI call into the native in-place writer".
 *
 * <ul>
 *   <li>baseline: producing the alternating id only
 *   <li>apiSetChanged: the shipped path, ThreadContext.set: agent check, ThreadLocal lookup of the
 *       cached direct view, compare with the record, fenced write
 *   <li>apiSetUnchanged: the same with an id already in the record (compare only, no write)
 *   <li>viewWriteOnly: the fenced Java write through a view held in a field (no lookup)
 *   <li>jniWriteCachedAddress: one JNI call per write to the native writer, address held in a field
 *       (what a per-thread cached address plus a JNI writer would cost, minus the lookup)
 *   <li>jniLookupAndWrite: the agent's currentRecord() (JNI + JVMTI thread-local lookup) plus the
 *       JNI write: a native path that keeps no Java-side state at all
 *   <li>*InVirtualThread: the shipped and the JNI path looped inside one virtual thread
 * </ul>
 */
public class WritePathBenchmark extends ShimBenchmark {
  private static final long TRACE_HIGH = 0x4bf92f3577b34da6L;
  private static final long TRACE_LOW = 0xa3ce929d0e0e4736L;
  private static final long SPAN_A = 0x00f067aa0ba902b7L;
  private static final long SPAN_B = 0x00f067aa0ba902b8L;
  private static final int LOOP = 10_000;

  private long span = SPAN_A;
  private ByteBuffer view;
  private long address;

  @Setup
  public void setUp() {
    requireAgent();
    view = TestNatives.currentRecordBuffer();
    address = TestNatives.currentRecord();
    CarrierProbe.publishedRecord(); // loads the probe library now, not inside a measurement
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
  public void apiSetChanged() {
    ThreadContext.set(TRACE_HIGH, TRACE_LOW, nextSpan(), 1);
  }

  @Benchmark
  public void apiSetUnchanged() {
    ThreadContext.set(TRACE_HIGH, TRACE_LOW, SPAN_A, 1);
  }

  @Benchmark
  public void viewWriteOnly() {
    RecordWriter.write(view, TRACE_HIGH, TRACE_LOW, nextSpan(), 1);
  }

  @Benchmark
  public void jniWriteCachedAddress() {
    CarrierProbe.write(address, TRACE_HIGH, TRACE_LOW, nextSpan(), 1);
  }

  @Benchmark
  public void jniLookupAndWrite() {
    CarrierProbe.write(TestNatives.currentRecord(), TRACE_HIGH, TRACE_LOW, nextSpan(), 1);
  }

  @Benchmark
  @OperationsPerInvocation(LOOP)
  public void apiSetChangedInVirtualThread() throws InterruptedException {
    inVirtualThread(
        () -> {
          for (int i = 0; i < LOOP; i++) {
            ThreadContext.set(TRACE_HIGH, TRACE_LOW, (i & 1) == 0 ? SPAN_A : SPAN_B, 1);
          }
        });
  }

  @Benchmark
  @OperationsPerInvocation(LOOP)
  public void jniLookupAndWriteInVirtualThread() throws InterruptedException {
    inVirtualThread(
        () -> {
          for (int i = 0; i < LOOP; i++) {
            long span = (i & 1) == 0 ? SPAN_A : SPAN_B;
            CarrierProbe.write(TestNatives.currentRecord(), TRACE_HIGH, TRACE_LOW, span, 1);
          }
        });
  }

  /** Runs `body` in a new virtual thread and waits for it. */
  private static void inVirtualThread(Runnable body) throws InterruptedException {
    Thread.ofVirtual().start(body).join();
  }
}
