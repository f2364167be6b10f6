package io.vtctx.bench.service;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.helidon.http.HeaderNames;
import io.helidon.webclient.api.HttpClientRequest;
import io.helidon.webclient.api.HttpClientResponse;
import io.helidon.webclient.api.WebClient;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.opentelemetry.context.propagation.TextMapSetter;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;

/**
 * The exchange-rate backend over HTTP (Helidon WebClient, blocking on the request's virtual thread,
 * keep-alive connections): one GET per call, in a CLIENT child span whose context travels in the
 * {@code traceparent} header.
 */
final class RateClient {
  record Rate(String currency, BigDecimal rate, String asOf) {}

  private static final TextMapSetter<HttpClientRequest> HEADERS =
      (request, key, value) -> request.header(HeaderNames.create(key), value);

  private final WebClient client;
  private final String baseUri;
  private final Tracer tracer;
  private final TextMapPropagator propagator;
  private final ObjectMapper json;

  RateClient(String baseUri, Tracer tracer, TextMapPropagator propagator, ObjectMapper json) {
    this.client = WebClient.builder().baseUri(baseUri).build();
    this.baseUri = baseUri;
    this.tracer = tracer;
    this.propagator = propagator;
    this.json = json;
  }

  Rate rate(String currency) throws IOException {
    String path = "/rates/" + currency;
    Span span =
        tracer
            .spanBuilder("GET /rates/{currency}")
            .setSpanKind(SpanKind.CLIENT)
            .setAttribute(ServiceAttributes.HTTP_METHOD, "GET")
            .setAttribute(ServiceAttributes.URL_FULL, baseUri + path)
            .startSpan();
    try (Scope scope = span.makeCurrent()) {
      HttpClientRequest request = client.get(path);
      propagator.inject(Context.current(), request, HEADERS);
      try (HttpClientResponse response = request.request();
          InputStream body = response.inputStream()) {
        int status = response.status().code();
        span.setAttribute(ServiceAttributes.HTTP_STATUS, status);
        if (status != 200) throw new IOException("rate backend answered " + status);
        return json.readValue(body, Rate.class);
      }
    } catch (IOException | RuntimeException e) {
      span.recordException(e);
      span.setStatus(StatusCode.ERROR);
      throw e;
    } finally {
      span.end();
    }
  }
}
