package io.vtctx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.vtctx.testing.Published;
import io.vtctx.testing.TestOtel;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The W3C example traceparent, through every way in (the OpenTelemetry decorator with a context
 * extracted by the W3C propagator, and the three API forms), on platform and virtual threads: the
 * carrier publishes exactly trace-id 4bf92f35...0e4736, span-id 00f067aa0ba902b7, valid 1, flags 1.
 */
@Tag("agent")
class W3cVectorTest {
  private static final String TRACEPARENT =
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
  // Expected header bytes 0..25, written out independently of any decoder.
  private static final String EXPECTED =
      "4bf92f3577b34da6a3ce929d0e0e4736" + "00f067aa0ba902b7" + "01" + "01";

  @BeforeAll
  static void setUp() {
    TestOtel.tracer();
    assertTrue(Published.init(), "agent not loaded");
  }

  private static String publishedHeader() {
    Published p = Published.now();
    assertEquals(ThreadContext.recordAddress(), p.address(), "carrier publishes another record");
    return HexFormat.of().formatHex(p.header(), 0, 26);
  }

  private static void onPlatformAndVirtual(Runnable check) throws Exception {
    AtomicReference<Throwable> failure = new AtomicReference<>();
    for (Thread.Builder b : new Thread.Builder[] {Thread.ofPlatform(), Thread.ofVirtual()}) {
      Thread t = b.uncaughtExceptionHandler((th, e) -> failure.set(e)).start(check);
      assertTrue(t.join(java.time.Duration.ofSeconds(30)));
      if (failure.get() != null) throw new AssertionError(b + ": " + failure.get(), failure.get());
    }
  }

  @Test
  void otelContextExtractedFromTraceparent() throws Exception {
    onPlatformAndVirtual(
        () -> {
          Context extracted =
              W3CTraceContextPropagator.getInstance()
                  .extract(Context.root(), Map.of("traceparent", TRACEPARENT), Getter.INSTANCE);
          SpanContext sc = Span.fromContext(extracted).getSpanContext();
          assertTrue(sc.isValid() && sc.isRemote());
          try (Scope s = extracted.makeCurrent()) {
            assertEquals(EXPECTED, publishedHeader());
          }
          assertEquals(0, Published.now().valid(), "closing the only scope leaves valid=0");
        });
  }

  @Test
  void apiForms() throws Exception {
    onPlatformAndVirtual(
        () -> {
          HexFormat hex = HexFormat.of();
          ThreadContext.set(
              hex.parseHex("4bf92f3577b34da6a3ce929d0e0e4736"),
              hex.parseHex("00f067aa0ba902b7"),
              1);
          assertEquals(EXPECTED, publishedHeader());
          ThreadContext.clear();
          assertEquals(0, Published.now().valid());
          ThreadContext.set(0x4bf92f3577b34da6L, 0xa3ce929d0e0e4736L, 0x00f067aa0ba902b7L, 1);
          assertEquals(EXPECTED, publishedHeader());
          ThreadContext.clear();
          ThreadContext.setHex("4BF92F3577B34DA6A3CE929D0E0E4736", "00F067AA0BA902B7", 1);
          assertEquals(EXPECTED, publishedHeader());
          ThreadContext.clear();
          assertEquals("00".repeat(26), publishedHeader());
        });
  }

  private enum Getter implements TextMapGetter<Map<String, String>> {
    INSTANCE;

    @Override
    public Iterable<String> keys(Map<String, String> carrier) {
      return carrier.keySet();
    }

    @Override
    public String get(Map<String, String> carrier, String key) {
      return carrier == null ? null : carrier.get(key);
    }
  }
}
