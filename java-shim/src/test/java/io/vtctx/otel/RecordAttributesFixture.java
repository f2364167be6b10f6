package io.vtctx.otel;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Tracer;
import io.vtctx.ThreadAttributes;
import io.vtctx.internal.TestNatives;
import io.vtctx.testing.Published;
import io.vtctx.testing.TestOtel;
import org.junit.jupiter.api.BeforeAll;

/**
 * What the tests of span attributes copied into records start from: the tracer of {@link TestOtel}
 * (first, so the decorator is registered before the context storage is created), the agent, the
 * record key indexes of the two attributes TestOtel copies, and the record size.
 */
abstract class RecordAttributesFixture {
  static final AttributeKey<String> ROUTE = AttributeKey.stringKey("http.route");
  static final AttributeKey<String> USER = AttributeKey.stringKey("enduser.id");
  static Tracer tracer;
  static int route; // the record key index of ROUTE
  static int user; // the record key index of USER
  static int recordSize;

  @BeforeAll
  static void setUpTracerAgentAndRecordKeys() {
    tracer = TestOtel.tracer();
    assertTrue(Published.init(), "agent not loaded");
    route = ThreadAttributes.registerKey(ROUTE.getKey());
    user = ThreadAttributes.registerKey(USER.getKey());
    recordSize = TestNatives.recordSize();
  }
}
