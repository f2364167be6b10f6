package io.vtctx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.ContextKey;
import io.opentelemetry.context.Scope;
import io.vtctx.otel.VtctxContextStorage;
import io.vtctx.testing.TestOtel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Without the agent (this JVM has no -agentpath): the API (ids and attributes) and the
 * OpenTelemetry storage (copying span attributes, as TestOtel configures) do nothing, throw
 * nothing, and say so in one log line. This is the only test class of its run that touches the
 * shim's entry points, so the log line it counts is the first use's.
 */
@Tag("no-agent")
class AgentAbsentTest {
  private static final Logger VTCTX_LOG = Logger.getLogger("io.vtctx");
  private static final List<LogRecord> records = new CopyOnWriteArrayList<>();

  static {
    VTCTX_LOG.addHandler(
        new Handler() {
          @Override
          public void publish(LogRecord r) {
            records.add(r);
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        });
  }

  @Test
  void everythingIsANoOpOnPlatformAndVirtualThreadsWithOneLogLine() throws Exception {
    Tracer tracer = TestOtel.tracer();
    Runnable work =
        () -> {
          assertFalse(ThreadContext.isAgentActive());
          assertEquals(0, ThreadContext.recordAddress());
          ThreadContext.set(new byte[16], new byte[8], 1);
          ThreadContext.set(1, 2, 3, 1);
          ThreadContext.setHex("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7", 1);
          ThreadContext.clear();
          int key = ThreadAttributes.registerKey("http.route");
          assertEquals(-1, key);
          assertEquals(-1, ThreadAttributes.set(key, "/x"));
          assertEquals(-1, ThreadAttributes.set(0, "/x"));
          ThreadAttributes.remove(0);
          // Spans with the attributes TestOtel configures to be copied.
          Span outer = tracer.spanBuilder("outer").setAttribute("http.route", "/o").startSpan();
          try (Scope a = outer.makeCurrent()) {
            Span inner = tracer.spanBuilder("inner").setAttribute("enduser.id", "u").startSpan();
            try (Scope b = inner.makeCurrent()) {
              assertSame(inner, Span.current());
              try (Scope c = Context.root().makeCurrent()) {
                assertFalse(Span.current().getSpanContext().isValid());
              }
            } finally {
              inner.end();
            }
            // the vtctx storage still keeps the context correctly
            assertSame(outer, Span.current());
          } finally {
            outer.end();
          }
        };
    work.run();
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < 200; i++) threads.add(Thread.ofVirtual().start(work));
    for (int i = 0; i < 4; i++) threads.add(Thread.ofPlatform().start(work));
    for (Thread t : threads) {
      assertTrue(t.join(java.time.Duration.ofSeconds(60)), "thread did not finish");
    }
    long absentLines =
        records.stream()
            .filter(r -> r.getMessage().contains("thread context is not published"))
            .count();
    assertEquals(1, absentLines, "exactly one 'not published' line: " + messages());
    assertTrue(records.get(0).getParameters()[0].toString().contains("not loaded"), messages());
  }

  @Test
  void theDecoratorIsInstalledThroughTheAutoconfigureSpi() {
    TestOtel.tracer();
    ContextKey<String> key = ContextKey.named("k");
    try (Scope s = Context.current().with(key, "v").makeCurrent()) { // creates the storage
      assertEquals("v", Context.current().get(key));
    }
    assertTrue(VtctxContextStorage.isInstalled());
  }

  @Test
  void argumentsAreCheckedEvenWithoutTheAgent() {
    assertThrows(
        IllegalArgumentException.class, () -> ThreadContext.set(new byte[15], new byte[8], 0));
    assertThrows(
        IllegalArgumentException.class, () -> ThreadContext.set(new byte[16], new byte[9], 0));
    assertThrows(NullPointerException.class, () -> ThreadContext.set(null, new byte[8], 0));
    assertThrows(
        IllegalArgumentException.class,
        () -> ThreadContext.setHex("4bf92f3577b34da6a3ce929d0e0e473x", "00f067aa0ba902b7", 1));
    assertThrows(
        IllegalArgumentException.class,
        () -> ThreadContext.setHex("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b", 1));
    assertThrows(NullPointerException.class, () -> ThreadAttributes.registerKey(null));
    assertThrows(IllegalArgumentException.class, () -> ThreadAttributes.registerKey(""));
    assertThrows(
        IllegalArgumentException.class, () -> ThreadAttributes.registerKey("k".repeat(256)));
  }

  private static String messages() {
    StringBuilder b = new StringBuilder();
    for (LogRecord r : records) {
      b.append(new java.util.logging.SimpleFormatter().formatMessage(r)).append(" | ");
    }
    return b.toString();
  }
}
