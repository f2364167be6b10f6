package io.vtctx.demo;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * {@code GET /notes/{id}}: one SERVER span per request (plain OpenTelemetry API; the vtctx shim
 * publishes it without any code here), a blocking "database" lookup, then JSON serialisation. The
 * CPU of a big note is burnt after the lookup, so usually on another carrier than the one that
 * started the request.
 *
 * <p>Around the request it records the demo's ground truth (not needed by the service itself):
 * its time window, the carrier it started on, resumed on after the lookup and ended on, and the
 * CPU measured on the carrier over the stretches that cannot unmount (before the lookup, and from
 * the lookup's result to the serialised body; the response write is not included).
 */
final class NoteHandler implements HttpHandler {
  private static final String ENTRY =
      "{\"trace_id\":\"%s\",\"span_id\":\"%s\",\"endpoint\":\"GET %s\",\"status\":%d,"
          + "\"bytes\":%d,\"start_ns\":%d,\"end_ns\":%d,\"start_tid\":%d,\"resume_tid\":%d,"
          + "\"end_tid\":%d,\"cpu_ns\":%d}";

  private final Tracer tracer;
  private final NoteStore store;
  private final RequestLog log;

  NoteHandler(Tracer tracer, NoteStore store, RequestLog log) {
    this.tracer = tracer;
    this.store = store;
    this.log = log;
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    log.begin();
    // Only the demo's own paths are expected; anything else is neutralised for the JSON log.
    String path = exchange.getRequestURI().getPath().replaceAll("[^A-Za-z0-9/_.-]", "?");
    long startNs = System.nanoTime();
    int startTid = OsThread.tid();
    long cpuMark = OsThread.cpuNanos();
    Span span =
        tracer
            .spanBuilder("GET /notes/{id}")
            .setSpanKind(SpanKind.SERVER)
            .setAttribute("http.request.method", "GET")
            .setAttribute("http.route", "/notes/{id}")
            .setAttribute("url.path", path)
            .startSpan();
    int status = 500;
    long bytes = 0;
    long cpuNs = 0;
    int resumeTid = 0;
    int endTid = 0;
    try (Scope ignored = span.makeCurrent()) {
      long id = parseId(path);
      cpuNs += OsThread.cpuNanos() - cpuMark;
      Note note = id > 0 ? store.find(id) : null; // blocks: the virtual thread unmounts
      cpuMark = OsThread.cpuNanos();
      resumeTid = OsThread.tid();
      byte[] body =
          (note != null ? NoteJson.write(note) : "{\"error\":\"no such note\"}")
              .getBytes(StandardCharsets.UTF_8);
      cpuNs += OsThread.cpuNanos() - cpuMark;
      status = note != null ? 200 : 404;
      span.setAttribute("http.response.status_code", status);
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      exchange.sendResponseHeaders(status, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
      bytes = body.length;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      endTid = OsThread.tid();
      span.end();
      exchange.close();
      long endNs = System.nanoTime();
      log.end(
          String.format(
              ENTRY,
              span.getSpanContext().getTraceId(),
              span.getSpanContext().getSpanId(),
              path,
              status,
              bytes,
              startNs,
              endNs,
              startTid,
              resumeTid,
              endTid,
              cpuNs));
    }
  }

  private static long parseId(String path) {
    try {
      return Long.parseLong(path.substring("/notes/".length()));
    } catch (NumberFormatException | IndexOutOfBoundsException e) {
      return -1;
    }
  }
}
