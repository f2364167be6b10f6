package io.vtctx.test;

import io.vtctx.internal.TestNatives;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Another thread-context writer arrives after vtctx (jvm.other_writer). Usage: OtherWriterCheck
 * <library>
 *
 * <p>Registers an attribute key and sets it on this thread, loads the library (another definer of
 * otel_thread_ctx_v1 with a process context of its own), then waits (60 s deadline) until the agent
 * reports it in its stats. From then on: no key is registered, no attribute is written, and the
 * next attribute write empties this thread's attributes (a reader could name them by the other
 * writer's keys). Prints PASS or FAIL lines.
 */
public final class OtherWriterCheck {
  public static void main(String[] args) throws Exception {
    int failures = 0;
    int key = TestNatives.registerAttributeKey("http.route");
    failures += check(key >= 0, "registerAttributeKey before: " + key);
    failures += check(TestNatives.setAttribute(key, "/a") == 2, "setAttribute before");
    ByteBuffer record = TestNatives.currentRecordBuffer().order(ByteOrder.nativeOrder());
    failures += check(record.getShort(26) > 0, "no attribute in the record before");

    System.load(args[0]);
    long deadline = System.nanoTime() + 60_000_000_000L;
    String stats = TestNatives.statsJson();
    while (!(stats.contains("\"other_writers\": 1")
            && stats.contains("\"other_process_contexts\": 1"))
        && System.nanoTime() < deadline) {
      Thread.sleep(50);
      stats = TestNatives.statsJson();
    }
    failures += check(stats.contains("\"other_writers\": 1"), "other_writers not 1 within 60 s");
    failures +=
        check(stats.contains("\"other_process_contexts\": 1"), "other_process_contexts not 1");
    failures += check(TestNatives.registerAttributeKey("user.id") == -1, "a key registered after");
    failures += check(TestNatives.setAttribute(key, "/b") == -1, "an attribute written after");
    failures += check(record.getShort(26) == 0, "the record kept its attributes");
    System.out.println(failures == 0 ? "other writer: PASS" : "other writer: FAIL");
    System.exit(failures == 0 ? 0 : 1);
  }

  private static int check(boolean ok, String failure) {
    if (ok) return 0;
    System.out.println("FAIL: " + failure);
    return 1;
  }
}
