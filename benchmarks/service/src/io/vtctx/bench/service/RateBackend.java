package io.vtctx.bench.service;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.helidon.http.HeaderNames;
import io.helidon.webserver.WebServer;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.concurrent.atomic.LongAdder;

/**
 * The backend the measured service calls: {@code GET /rates/{currency}} answers a small JSON
 * exchange rate. Runs in its own JVM without an agent; its CPU is not the service's.
 *
 * <p>Usage: {@code RateBackend}. Prints {@code {"event":"listening",...}}, serves until {@code
 * quit} on stdin (see {@link ControlLoop}).
 */
public final class RateBackend {
  private RateBackend() {}

  public static void main(String[] args) throws Exception {
    ObjectMapper json = new ObjectMapper();
    LongAdder answered = new LongAdder();
    String asOf = Instant.now().toString();
    WebServer server =
        WebServer.builder()
            .host("127.0.0.1")
            .port(0)
            .routing(
                routing ->
                    routing.get(
                        "/rates/{currency}",
                        (request, response) -> {
                          String currency = request.path().pathParameters().get("currency");
                          BigDecimal rate =
                              BigDecimal.valueOf(1000 + Math.floorMod(currency.hashCode(), 500), 3);
                          byte[] body =
                              json.writeValueAsBytes(new RateClient.Rate(currency, rate, asOf));
                          response.header(HeaderNames.CONTENT_TYPE, "application/json").send(body);
                          answered.increment();
                        }))
            .build()
            .start();
    ControlLoop.say(
        "{\"event\":\"listening\",\"pid\":%d,\"port\":%d,\"carriers\":%s,\"java\":\"%s\"}",
        ProcessHandle.current().pid(),
        server.port(),
        ControlLoop.carriers(),
        Runtime.version());
    ControlLoop.run(() -> String.format("{\"event\":\"stats\",\"answered\":%d}", answered.sum()));
    server.stop();
  }
}
