package io.vtctx.otel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.vtctx.testing.Published;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * Runs under the OpenTelemetry Java agent with the shim jar as its extension
 * (-Dotel.javaagent.extensions) and the vtctx agent; the application class path holds no vtctx
 * class. Spans made current through the application's OpenTelemetry API (bridged by the Java agent
 * to its own context) must reach each thread's record: the carrier publishes the thread's record
 * (the one it published before any span) holding Span.current(), byte-exact, and the span attribute
 * it.route (-Dotel.vtctx.record.attributes, read by the Java agent's autoconfiguration; key index 0
 * through the vtctx agent's attribute_keys option), inherited by the inner span.
 */
class JavaagentExtensionIT {
  @Test
  void theExtensionPublishesSpansOfTheApplication() throws Exception {
    assertTrue(Published.init(), "vtctx agent not loaded");
    assertThrowsClassNotFound("io.vtctx.ThreadContext"); // only the extension has the shim
    Tracer tracer = GlobalOpenTelemetry.getTracer("vtctx-extension-it");
    assertTrue(
        tracer.spanBuilder("probe").startSpan().getSpanContext().isValid(),
        "no OpenTelemetry Java agent: the global tracer is a no-op");

    AtomicLong checks = new AtomicLong();
    List<String> failures = java.util.Collections.synchronizedList(new ArrayList<>());
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < 500; i++) {
      String route = "/it/" + i;
      threads.add(
          Thread.ofVirtual()
              .start(
                  () -> {
                    long record = Published.now().address(); // before any span: valid=0
                    assertNotEquals(0, record);
                    Runnable check =
                        () -> {
                          checks.incrementAndGet();
                          Published p = Published.now(64);
                          SpanContext current = Span.current().getSpanContext();
                          String m = Published.mismatch(p, record, current);
                          // it.route (key 0) is copied from the outer span; inherited by inner.
                          Map<Integer, String> want =
                              current.isValid() ? Map.of(0, route) : Map.of();
                          if (m == null && !p.attributes().equals(want)) {
                            m = "attributes " + p.attributes() + ", expected " + want;
                          }
                          if (m != null) failures.add(m);
                        };
                    check.run();
                    Span outer =
                        tracer.spanBuilder("outer").setAttribute("it.route", route).startSpan();
                    try (Scope a = outer.makeCurrent()) {
                      check.run();
                      LockSupport.parkNanos(50_000);
                      check.run();
                      Span inner = tracer.spanBuilder("inner").startSpan();
                      try (Scope b = inner.makeCurrent()) {
                        check.run();
                        Thread.yield();
                        check.run();
                        try (Scope none = Context.root().makeCurrent()) {
                          check.run();
                        }
                        check.run();
                      } finally {
                        inner.end();
                      }
                      check.run();
                    } finally {
                      outer.end();
                    }
                    check.run();
                  }));
    }
    for (Thread t : threads) assertTrue(t.join(Duration.ofSeconds(120)), "thread did not finish");
    System.out.println(
        "JavaagentExtensionIT: checks=" + checks.get() + " failures=" + failures.size());
    assertEquals(List.of(), failures.subList(0, Math.min(5, failures.size())));
    assertEquals(500L * 9, checks.get());
  }

  private static void assertThrowsClassNotFound(String name) {
    try {
      Class.forName(name);
      throw new AssertionError(name + " is on the application class path");
    } catch (ClassNotFoundException expected) {
      // as it should be
    }
  }
}
