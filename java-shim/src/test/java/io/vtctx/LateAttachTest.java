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
 * with io.vtctx.reprobeMillis=20.
 */
@Tag("late-attach")
class LateAttachTest {
  @Test
  void publishingStartsOnceTheAgentIsAttached() throws Exception {
    Tracer tracer = TestOtel.tracer();
    // Before the attach: a no-op, in this thread and in a virtual thread that will outlive it.
    assertFalse(ThreadContext.isAgentActive());
    assertEquals(0, ThreadContext.recordAddress());
    ThreadContext.set(1, 2, 3, 1);
    Span early = tracer.spanBuilder("before attach").startSpan();
    CountDownLatch attached = new CountDownLatch(1);
    AtomicReference<String> oldThread = new AtomicReference<>("not run");
    Thread old =
        Thread.ofVirtual()
            .start(
                () -> {
                  try (Scope s = early.makeCurrent()) { // published nowhere: no agent yet
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

    String agent = System.getProperty("vtctx.test.agent");
    VirtualMachine vm = VirtualMachine.attach(Long.toString(ProcessHandle.current().pid()));
    try {
      vm.loadAgentPath(agent, "log=error");
    } finally {
      vm.detach();
    }
    assertTrue(Published.init(), "agent not loaded after the attach");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!ThreadContext.isAgentActive()) { // re-probed every 20 ms (io.vtctx.reprobeMillis)
      assertTrue(System.nanoTime() < deadline, "the shim did not pick up the attached agent");
      LockSupport.parkNanos(1_000_000);
    }

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
