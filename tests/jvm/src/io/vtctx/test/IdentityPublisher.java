package io.vtctx.test;

import io.vtctx.internal.TestNatives;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Prints "READY pid", waits for "go" on stdin (an agent may be attached meanwhile), then 200
 * virtual threads each take their record and yield a few times; prints "PUBLISHED n" once every
 * one of them had a record, else "FAILED why". With argument "identity" (channel=identity) each
 * also checks, between its yields, that its carrier's otel_thread_ctx_v1 never points at its own
 * record (it would go stale at an unmount no event reports). For notifyByteTest.py.
 */
public final class IdentityPublisher {
  public static void main(String[] args) throws Exception {
    boolean identity = args.length > 1 && args[1].equals("identity");
    System.out.println("READY " + ProcessHandle.current().pid());
    System.out.flush();
    BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in));
    if (!"go".equals(stdin.readLine())) System.exit(2);
    if (identity && !CarrierProbe.init(args[0])) {  // the agent may be attached only now
      System.out.println("FAILED no carrier probe");
      return;
    }
    if (!TestNatives.isActive()) {
      System.out.println("FAILED the agent is not active");
      return;
    }
    List<Thread> threads = new ArrayList<>();
    int[] with = new int[1];
    int[] onCarrier = new int[1];
    for (int i = 0; i < 200; i++) {
      threads.add(Thread.ofVirtual().start(() -> {
        ByteBuffer record = TestNatives.currentRecordBuffer();
        long own = TestNatives.currentRecord();
        for (int k = 0; k < 5; k++) {
          if (identity && CarrierProbe.publishedRecord() == own) {
            synchronized (onCarrier) {
              onCarrier[0]++;
            }
          }
          Thread.yield();
        }
        if (record != null) {
          synchronized (with) {
            with[0]++;
          }
        }
      }));
    }
    for (Thread t : threads) t.join();
    if (onCarrier[0] != 0) {
      System.out.println("FAILED " + onCarrier[0] + " times a carrier pointed at its virtual "
          + "thread's record");
    } else {
      System.out.println(with[0] == 200 ? "PUBLISHED 200" : "FAILED only " + with[0] + " records");
    }
    System.out.flush();
    stdin.readLine();
  }
}
