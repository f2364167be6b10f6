package io.vtctx.bench.service;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.helidon.webserver.WebServer;
import io.vtctx.bench.jmh.BenchConfig;

/**
 * The measured service: Helidon SE 4's web server on loopback (each connection's requests run on a
 * virtual thread), an OpenTelemetry SDK span per request and a child span per backend call, a
 * PostgreSQL query and an HTTP call to the rate backend per request, a JSON answer.
 *
 * <p>Usage: {@code OrderService JDBC_URL DB_USER DB_CONNECTIONS BACKEND_URI}, with the system
 * properties of {@link BenchConfig} (which agent, whether the shim writes; checked before
 * serving). Prints {@code {"event":"listening",...}}, then serves until {@code quit} on stdin;
 * {@code stats} answers requests answered, spans ended and spans exported (see {@link
 * ControlLoop}).
 */
public final class OrderService {
  private OrderService() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 4) {
      throw new IllegalArgumentException(
          "usage: OrderService JDBC_URL DB_USER DB_CONNECTIONS BACKEND_URI");
    }
    BenchConfig config = BenchConfig.fromSystemProperties();
    config.installShimIfAsked(); // before any OpenTelemetry context is used
    ObjectMapper json = new ObjectMapper();
    try (Telemetry telemetry = new Telemetry("vtctx-bench-orders");
        OrderStore orders =
            new OrderStore(args[0], args[1], Integer.parseInt(args[2]), telemetry.tracer())) {
      config.checkAgentAndShim(telemetry.tracer());
      RateClient rates = new RateClient(args[3], telemetry.tracer(), Telemetry.propagator(), json);
      OrderHandler handler =
          new OrderHandler(telemetry.tracer(), Telemetry.propagator(), orders, rates, json);
      WebServer server =
          WebServer.builder()
              .host("127.0.0.1")
              .port(0)
              .routing(routing -> routing.get(OrderHandler.ROUTE, handler))
              .build()
              .start();
      ControlLoop.say(
          "{\"event\":\"listening\",\"pid\":%d,\"port\":%d,\"carriers\":%s,\"java\":\"%s\","
              + "\"config\":\"%s\"}",
          ProcessHandle.current().pid(),
          server.port(),
          ControlLoop.carriers(),
          Runtime.version(),
          config.name());
      ControlLoop.run(
          () ->
              String.format(
                  "{\"event\":\"stats\",\"answered\":%d,\"spans_ended\":%d,"
                      + "\"spans_exported\":%d}",
                  handler.answered(),
                  telemetry.ended(),
                  telemetry.flushAndCountExported()));
      server.stop();
    }
  }
}
