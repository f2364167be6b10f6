package io.vtctx.bench.service;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.helidon.http.HeaderNames;
import io.helidon.http.ServerRequestHeaders;
import io.helidon.webserver.http.Handler;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * {@code GET /orders/{id}?currency=C}: a SERVER span (continuing the caller's trace if it sent
 * one), the order from PostgreSQL, the exchange rate from the backend, the answer as JSON. Runs on
 * the virtual thread Helidon gives the request; both calls block it (it unmounts).
 */
final class OrderHandler implements Handler {
  static final String ROUTE = "/orders/{id}";

  record LineAnswer(String sku, int quantity, BigDecimal unitPrice, BigDecimal amount) {}

  record OrderAnswer(
      int id,
      String customer,
      String status,
      String created,
      String currency,
      BigDecimal rate,
      String rateAsOf,
      List<LineAnswer> lines,
      BigDecimal total) {}

  private static final TextMapGetter<ServerRequestHeaders> HEADERS =
      (headers, key) ->
          headers == null ? null : headers.first(HeaderNames.create(key)).orElse(null);

  private final Tracer tracer;
  private final TextMapPropagator propagator;
  private final OrderStore orders;
  private final RateClient rates;
  private final ObjectMapper json;
  private final LongAdder answered = new LongAdder();

  OrderHandler(
      Tracer tracer,
      TextMapPropagator propagator,
      OrderStore orders,
      RateClient rates,
      ObjectMapper json) {
    this.tracer = tracer;
    this.propagator = propagator;
    this.orders = orders;
    this.rates = rates;
    this.json = json;
  }

  /** Requests answered with 200 so far. */
  long answered() {
    return answered.sum();
  }

  @Override
  public void handle(ServerRequest request, ServerResponse response) throws Exception {
    Context parent = propagator.extract(Context.root(), request.headers(), HEADERS);
    Span span =
        tracer
            .spanBuilder("GET " + ROUTE)
            .setParent(parent)
            .setSpanKind(SpanKind.SERVER)
            .setAttribute(ServiceAttributes.HTTP_METHOD, "GET")
            .setAttribute(ServiceAttributes.HTTP_ROUTE, ROUTE)
            .startSpan();
    int status = 500;
    try (Scope scope = span.makeCurrent()) {
      int id = Integer.parseInt(request.path().pathParameters().get("id"));
      String currency = request.query().first("currency").orElse("EUR");
      OrderStore.Order order = orders.find(id);
      if (order == null) {
        status = 404;
        response.status(status).send();
        return;
      }
      RateClient.Rate rate = rates.rate(currency);
      byte[] body = json.writeValueAsBytes(answer(order, rate));
      status = 200;
      response.header(HeaderNames.CONTENT_TYPE, "application/json").send(body);
      answered.increment();
    } catch (Exception e) {
      span.recordException(e);
      span.setStatus(StatusCode.ERROR);
      throw e;
    } finally {
      span.setAttribute(ServiceAttributes.HTTP_STATUS, status);
      span.end();
    }
  }

  private static OrderAnswer answer(OrderStore.Order order, RateClient.Rate rate) {
    List<LineAnswer> lines =
        order.lines().stream()
            .map(
                l ->
                    new LineAnswer(
                        l.sku(),
                        l.quantity(),
                        l.unitPrice(),
                        l.unitPrice()
                            .multiply(BigDecimal.valueOf(l.quantity()))
                            .multiply(rate.rate())
                            .setScale(2, RoundingMode.HALF_EVEN)))
            .toList();
    BigDecimal total =
        lines.stream().map(LineAnswer::amount).reduce(BigDecimal.ZERO, BigDecimal::add);
    return new OrderAnswer(
        order.id(),
        order.customer(),
        order.status(),
        order.created(),
        rate.currency(),
        rate.rate(),
        rate.asOf(),
        lines,
        total);
  }
}
