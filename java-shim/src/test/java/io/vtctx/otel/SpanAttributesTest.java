package io.vtctx.otel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.ContextKey;
import io.opentelemetry.context.Scope;
import io.vtctx.ThreadAttributes;
import io.vtctx.ThreadContext;
import io.vtctx.internal.TestNatives;
import io.vtctx.testing.Published;
import io.vtctx.testing.TestOtel;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Span attributes copied into the record by the vtctx storage (http.route and enduser.id,
 * configured through autoconfigure in {@link TestOtel}), rule by rule, in what the carrier
 * publishes.
 */
@Tag("agent")
class SpanAttributesTest extends RecordAttributesFixture {
  private static void onVirtualThread(Runnable body) throws Exception {
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread t = Thread.ofVirtual().uncaughtExceptionHandler((th, e) -> failure.set(e)).start(body);
    assertTrue(t.join(Duration.ofSeconds(30)), "test thread did not finish");
    if (failure.get() != null) throw new AssertionError(failure.get());
  }

  /** The carrier publishes this thread's record, holding Span.current() and these attributes. */
  private static void assertPublishes(Map<Integer, String> attributes) {
    Thread.yield(); // maybe another carrier
    assertNull(Published.mismatch(ThreadContext.recordAddress(), Span.current().getSpanContext()));
    assertEquals(attributes, Published.now(recordSize).attributes());
  }

  @Test
  void theConfigurationCameFromAutoconfigure() {
    assertEquals(TestOtel.RECORD_ATTRIBUTES, VtctxContextStorage.recordAttributes());
  }

  @Test
  void theCurrentSpansAttributesAreCopiedAndClearedWithoutSpan() throws Exception {
    onVirtualThread(
        () -> {
          assertPublishes(Map.of());
          Span a =
              tracer
                  .spanBuilder("a")
                  .setAttribute(ROUTE, "/a")
                  .setAttribute(USER, "alice")
                  .startSpan();
          try (Scope sa = a.makeCurrent()) {
            assertPublishes(Map.of(route, "/a", user, "alice"));
            try (Scope none = Context.root().makeCurrent()) {
              assertPublishes(Map.of()); // valid=0 and no entries
            }
            assertPublishes(Map.of(route, "/a", user, "alice"));
          }
          assertPublishes(Map.of());
        });
  }

  @Test
  void childSpansInheritTheirParentsValuesAndOverrideThem() throws Exception {
    onVirtualThread(
        () -> {
          Span server = tracer.spanBuilder("server").setAttribute(ROUTE, "/users/{id}").startSpan();
          try (Scope s = server.makeCurrent()) {
            assertPublishes(Map.of(route, "/users/{id}"));
            Span db = tracer.spanBuilder("db").setAttribute(USER, "bob").startSpan();
            try (Scope d = db.makeCurrent()) {
              assertPublishes(Map.of(route, "/users/{id}", user, "bob"));
              Span inner = tracer.spanBuilder("inner").setAttribute(ROUTE, "/inner").startSpan();
              try (Scope i = inner.makeCurrent()) {
                assertPublishes(Map.of(route, "/inner", user, "bob"));
                Span leaf = tracer.spanBuilder("leaf").startSpan();
                try (Scope l = leaf.makeCurrent()) {
                  assertPublishes(Map.of(route, "/inner", user, "bob"));
                }
                assertPublishes(Map.of(route, "/inner", user, "bob"));
              }
              assertPublishes(Map.of(route, "/users/{id}", user, "bob"));
            }
            assertPublishes(Map.of(route, "/users/{id}"));
          }
          assertPublishes(Map.of());
        });
  }

  @Test
  void aValueSetAfterMakeCurrentIsReadAtTheNextSpanChange() throws Exception {
    onVirtualThread(
        () -> {
          Span server = tracer.spanBuilder("server").startSpan();
          try (Scope s = server.makeCurrent()) {
            assertPublishes(Map.of());
            server.setAttribute(ROUTE, "/late"); // as a web framework does once routed
            assertPublishes(Map.of()); // not read until the span changes
            ContextKey<String> other = ContextKey.named("other");
            try (Scope same = Context.current().with(other, "x").makeCurrent()) {
              assertPublishes(Map.of()); // same span: nothing is read again
            }
            Span child = tracer.spanBuilder("child").startSpan();
            try (Scope c = child.makeCurrent()) {
              assertPublishes(Map.of(route, "/late")); // the parent is read again
            }
            assertPublishes(Map.of(route, "/late")); // and its own value at the close
            server.setAttribute(ROUTE, "/later");
            Span second = tracer.spanBuilder("second").startSpan();
            try (Scope c = second.makeCurrent()) {
              assertPublishes(Map.of(route, "/later"));
              server.setAttribute(ROUTE, "/during"); // while a child is current
            }
            // Closing back restores what the child inherited (read when it started): no read.
            assertPublishes(Map.of(route, "/later"));
            Span third = tracer.spanBuilder("third").startSpan();
            try (Scope c = third.makeCurrent()) {
              assertPublishes(Map.of(route, "/during"));
            }
            assertPublishes(Map.of(route, "/during"));
          }
        });
  }

  @Test
  void aSpanThatIsNotAChildOfTheCurrentOneInheritsNothing() throws Exception {
    onVirtualThread(
        () -> {
          Span server = tracer.spanBuilder("server").setAttribute(ROUTE, "/s").startSpan();
          try (Scope s = server.makeCurrent()) {
            Span unrelated = tracer.spanBuilder("unrelated").setNoParent().startSpan();
            try (Scope u = unrelated.makeCurrent()) {
              assertPublishes(Map.of());
            }
            assertPublishes(Map.of(route, "/s"));
            // A context carried from elsewhere with a span of the same trace, not a child.
            Span sibling = tracer.spanBuilder("sibling").startSpan();
            try (Scope c = sibling.makeCurrent()) {
              Span nephew =
                  tracer.spanBuilder("nephew").setParent(Context.root().with(server)).startSpan();
              try (Scope n = nephew.makeCurrent()) {
                assertPublishes(Map.of()); // its parent is not the span current here
              }
              assertPublishes(Map.of(route, "/s"));
            }
          }
        });
  }

  @Test
  void onlyStringAttributesAreCopied() throws Exception {
    onVirtualThread(
        () -> {
          Span s =
              tracer
                  .spanBuilder("s")
                  .setAttribute(AttributeKey.longKey("enduser.id"), 42L)
                  .startSpan();
          try (Scope sc = s.makeCurrent()) {
            assertPublishes(Map.of());
          }
        });
  }

  @Test
  void unchangedValuesAreNotRewritten() throws Exception {
    onVirtualThread(
        () -> {
          ByteBuffer raw = TestNatives.currentRecordBuffer();
          Span server = tracer.spanBuilder("server").setAttribute(ROUTE, "/x").startSpan();
          try (Scope s = server.makeCurrent()) {
            assertPublishes(Map.of(route, "/x"));
            // Tamper with the value's byte behind the shim's back: only a rewrite restores it.
            assertEquals('x', raw.get(28 + 2 + 1));
            raw.put(28 + 2 + 1, (byte) 'Y');
            Span child = tracer.spanBuilder("child").startSpan(); // inherits "/x": no rewrite
            try (Scope c = child.makeCurrent()) {
              assertPublishes(Map.of(route, "/Y"));
            }
            assertPublishes(Map.of(route, "/Y"));
            Span other = tracer.spanBuilder("other").setAttribute(ROUTE, "/o").startSpan();
            try (Scope c = other.makeCurrent()) {
              assertPublishes(Map.of(route, "/o")); // a changed value is written
            }
            assertPublishes(Map.of(route, "/x"));
          }
        });
  }

  @Test
  void longValuesAreCutAtUtf8Boundaries() throws Exception {
    onVirtualThread(
        () -> {
          String euros = "\u20ac".repeat(300);
          Span s = tracer.spanBuilder("s").setAttribute(ROUTE, euros).startSpan();
          try (Scope sc = s.makeCurrent()) {
            int room = Math.min(255, recordSize - 28 - 2);
            assertPublishes(Map.of(route, "\u20ac".repeat(room / 3)));
            Span c =
                tracer.spanBuilder("c").setAttribute(USER, "\ud83d\ude00".repeat(100)).startSpan();
            try (Scope cc = c.makeCurrent()) {
              // The user entry gets what the route entry left, in whole 4-byte characters.
              int left = recordSize - 28 - (2 + room / 3 * 3) - 2;
              int userBytes = Math.min(255, Math.max(0, left)) / 4 * 4;
              Map<Integer, String> want =
                  left >= 0
                      ? Map.of(
                          route,
                          "\u20ac".repeat(room / 3),
                          user,
                          "\ud83d\ude00".repeat(userBytes / 4))
                      : Map.of(route, "\u20ac".repeat(room / 3));
              assertPublishes(want);
            }
          }
        });
  }

  @Test
  void aNewConfigurationRemovesTheOldKeys() throws Exception {
    int other = ThreadAttributes.registerKey("test.tenant");
    try {
      onVirtualThread(
          () -> {
            Span a =
                tracer
                    .spanBuilder("a")
                    .setAttribute(ROUTE, "/a")
                    .setAttribute(AttributeKey.stringKey("test.tenant"), "acme")
                    .startSpan();
            try (Scope sa = a.makeCurrent()) {
              assertPublishes(Map.of(route, "/a"));
              VtctxContextStorage.setRecordAttributes(List.of("test.tenant"));
              Span b = tracer.spanBuilder("b").startSpan();
              try (Scope sb = b.makeCurrent()) {
                assertPublishes(Map.of()); // the old key went; b has no tenant of its own
              }
              assertPublishes(Map.of(other, "acme"));
              VtctxContextStorage.setRecordAttributes(List.of());
              try (Scope none = Context.root().makeCurrent()) {
                assertPublishes(Map.of());
              }
              assertPublishes(Map.of()); // nothing configured: nothing copied
            }
          });
    } finally {
      VtctxContextStorage.setRecordAttributes(TestOtel.RECORD_ATTRIBUTES);
    }
  }
}
