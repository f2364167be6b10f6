package io.vtctx.bench;

import io.vtctx.ThreadAttributes;
import io.vtctx.internal.AttributeWriter;
import io.vtctx.internal.TestNatives;
import java.nio.ByteBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

/**
 * The two write paths for one attribute value (the value alternates, so every operation really
 * rewrites attrs-data): the agent's native {@code TestNatives.setAttribute} and the Java writer
 * through the thread's view. The record also holds another key's entry, which every set has to move
 * (remove + append). Needs the agent (-agentpath), 64-byte records.
 *
 * <ul>
 *   <li>baseline: choosing the value only
 *   <li>nativeSet: one JNI call: the agent's record lookup, UTF-16 to UTF-8, the native writer
 *   <li>apiSet: the shipped path, ThreadAttributes.set: agent check, ThreadLocal lookup of the
 *       view, Java UTF-8 encoding into the record, in-place protocol
 *   <li>javaWriterOnly: the Java writer with the view held in a field (no lookup)
 * </ul>
 *
 * <p>value: "ascii" = 18/19-byte routes; "utf8" = the same length in 2-, 3- and 4-byte characters.
 */
public class AttributeWriteBenchmark extends ShimBenchmark {
  @Param({"ascii", "utf8"})
  public String value;

  private String a;
  private String b;
  private boolean flip;
  private int route;
  private ByteBuffer view;

  @Setup
  public void setUp() {
    requireAgent();
    if (value.equals("ascii")) {
      a = "/api/v1/users/{id}";
      b = "/api/v1/orders/{id}";
    } else {
      a = "/é/€/\uD83D\uDE00/ü"; // 1+2+1+3+1+4+1+2 = 15 bytes
      b = "/ß/₤/\uD83D\uDE01/ö";
    }
    int method = ThreadAttributes.registerKey("bench.method");
    route = ThreadAttributes.registerKey("bench.route");
    if (method < 0 || route < 0) throw new IllegalStateException("keys not registered");
    ThreadAttributes.set(method, "GET");
    view = TestNatives.currentRecordBuffer();
    if (view.capacity() != 64) throw new IllegalStateException("run with 64-byte records");
  }

  private String next() {
    flip = !flip;
    return flip ? a : b;
  }

  @Benchmark
  public String baseline() {
    return next();
  }

  @Benchmark
  public int nativeSet() {
    return TestNatives.setAttribute(route, next());
  }

  @Benchmark
  public int apiSet() {
    return ThreadAttributes.set(route, next());
  }

  @Benchmark
  public int javaWriterOnly() {
    return AttributeWriter.set(view, route, next());
  }
}
