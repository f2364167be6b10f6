package io.vtctx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.tools.attach.VirtualMachine;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import io.vtctx.testing.Published;
import io.vtctx.testing.TestOtel;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The shim is used (and finds no agent) before the agent is attached to this JVM; once attached,
 * publishing starts without a restart: in threads that existed before the attach, in new threads,
 * through the API and through the OpenTelemetry storage. Runs in its own JVM without -agentpath,
 * with 2 carriers, both kept busy across the attach by CPU-bound virtual threads: publishing must
 * still start at once (within 1 s of the attach returning), with no shim thread having to run.
 */
@Tag("late-attach")
class LateAttachTest {
  private static final long START_BOUND_NANOS = TimeUnit.SECONDS.toNanos(1);

  /** A virtual thread that never yields its carrier and publishes new ids on every turn. */
  private static final class Spinner implements Runnable {
    private final int id;
    volatile boolean stop;
    volatile boolean probeReady; // the carrier probe is initialized (after the attach)
    volatile long firstPublished; // System.nanoTime() of its first publish the carrier showed
    volatile String failure;

    Spinner(int id) {
      this.id = id;
    }

    @Override
    public void run() {
      long turn = 0;
      while (!stop) {
        turn++;
        boolean active = ThreadContext.isAgentActive(); // before the set: it then publishes
        ThreadContext.set(0x5eed0000L + id, turn, turn, 1);
        if (firstPublished == 0 && probeReady && active) {
          ByteBuffer b = ByteBuffer.wrap(Published.now().header()); // big-endian: W3C order
          if (b.getLong(0) == 0x5eed0000L + id && b.getLong(8) == turn && b.getLong(16) == turn) {
            firstPublished = System.nanoTime();
          } else {
            failure = "spinner " + id + ": the carrier publishes " + Published.now();
          }
        }
        Thread.onSpinWait();
      }
    }
  }

  @Test
  void publishingStartsOnceTheAgentIsAttached() throws Exception {
    Tracer tracer = TestOtel.tracer();
    // Before the attach: a no-op, in this thread and in a virtual thread that will outlive it.
    assertFalse(ThreadContext.isAgentActive());
    assertEquals(0, ThreadContext.recordAddress());
    ThreadContext.set(1, 2, 3, 1);
    Span early = tracer.spanBuilder("before attach").startSpan();
    CountDownLatch attached = new CountDownLatch(1);
    CountDownLatch oldReady = new CountDownLatch(1);
    AtomicReference<String> oldThread = new AtomicReference<>("not run");
    Thread old =
        Thread.ofVirtual()
            .start(
                () -> {
                  try (Scope s = early.makeCurrent()) { // published nowhere: no agent yet
                    oldReady.countDown();
                    attached.await();
                    long record = ThreadContext.recordAddress();
                    // Still the same context, and no change since the attach: nothing published
                    // yet (incomplete, never wrong).
                    String m = Published.mismatch(record, null);
                    if (m == null) {
                      Span child = tracer.spanBuilder("after attach").startSpan();
                      try (Scope c = child.makeCurrent()) {
                        m = Published.mismatch(record, child.getSpanContext());
                        LockSupport.parkNanos(100_000);
                        if (m == null) m = Published.mismatch(record, child.getSpanContext());
                      }
                      if (m == null) m = Published.mismatch(record, early.getSpanContext());
                    }
                    oldThread.set(m);
                  } catch (InterruptedException e) {
                    oldThread.set("interrupted");
                  }
                });

    assertTrue(oldReady.await(30, TimeUnit.SECONDS));
    // Both carriers busy from here to the end of the check (-Djdk.virtualThreadScheduler.* in
    // pom.xml): no other virtual thread runs meanwhile.
    int carriers = Integer.getInteger("jdk.virtualThreadScheduler.parallelism", 2);
    Spinner[] spinners = new Spinner[carriers];
    Thread[] spinning = new Thread[carriers];
    for (int i = 0; i < carriers; i++) {
      spinners[i] = new Spinner(i);
      spinning[i] = Thread.ofVirtual().name("spinner-" + i).start(spinners[i]);
    }

    String agent = System.getProperty("vtctx.test.agent");
    VirtualMachine vm = VirtualMachine.attach(Long.toString(ProcessHandle.current().pid()));
    try {
      vm.loadAgentPath(agent, "log=error");
    } finally {
      vm.detach();
    }
    long attachReturned = System.nanoTime();
    assertTrue(Published.init(), "agent not loaded after the attach");
    for (Spinner spinner : spinners) spinner.probeReady = true;
    // The carrier probe's own check: wait (bounded) for every spinner's first published context.
    long deadline = attachReturned + TimeUnit.SECONDS.toNanos(10);
    for (Spinner spinner : spinners) {
      while (spinner.firstPublished == 0 && spinner.failure == null) {
        assertTrue(System.nanoTime() < deadline, "a spinner never published: shim not told");
        LockSupport.parkNanos(1_000_000);
      }
    }
    for (int i = 0; i < carriers; i++) {
      spinners[i].stop = true;
      assertTrue(spinning[i].join(Duration.ofSeconds(30)));
      assertNull(spinners[i].failure);
      long late = spinners[i].firstPublished - attachReturned;
      assertTrue(
          late <= START_BOUND_NANOS,
          "spinner " + i + " started publishing " + late / 1_000_000 + " ms after the attach");
    }
    assertTrue(ThreadContext.isAgentActive());

    // The main (platform) thread existed before the attach: gets a record at first use.
    long record = ThreadContext.recordAddress();
    assertNotEquals(0, record);
    ThreadContext.setHex("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7", 1);
    assertEquals(
        "4bf92f3577b34da6a3ce929d0e0e4736" + "00f067aa0ba902b7" + "0101",
        java.util.HexFormat.of().formatHex(Published.now().header(), 0, 26));
    ThreadContext.clear();
    assertNull(Published.mismatch(record, null));

    attached.countDown();
    assertTrue(old.join(Duration.ofSeconds(30)));
    assertNull(oldThread.get(), "thread from before the attach");

    // A new virtual thread after the attach, through the decorator.
    AtomicReference<String> fresh = new AtomicReference<>("not run");
    Thread t =
        Thread.ofVirtual()
            .start(
                () -> {
                  Span s = tracer.spanBuilder("new thread").startSpan();
                  try (Scope sc = s.makeCurrent()) {
                    Thread.yield();
                    fresh.set(
                        Published.mismatch(ThreadContext.recordAddress(), s.getSpanContext()));
                  }
                });
    assertTrue(t.join(Duration.ofSeconds(30)));
    assertNull(fresh.get(), "thread started after the attach");
  }
}
