package io.vtctx.demo;

import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The demo's service: the JDK's HTTP server on loopback with one virtual thread per request, and
 * OpenTelemetry SDK spans (autoconfigured: with the vtctx shim jar on the class path, its SPI
 * installs the context-storage decorator that publishes spans into the agent's records).
 *
 * <p>Usage: NotesService LOG_PATH BIG_NOTE_CHARS. Prints {@code {"event":"listening",...}} on
 * stdout, then reads commands on stdin: {@code flush} writes the request log and answers {@code
 * {"event":"flushed",...}}; {@code quit} or end of input stops the service.
 */
public final class NotesService {
  private NotesService() {}

  public static void main(String[] args) throws Exception {
    Path logPath = Path.of(args[0]);
    int bigNoteChars = Integer.parseInt(args[1]);
    OpenTelemetrySdk otel = AutoConfiguredOpenTelemetrySdk.initialize().getOpenTelemetrySdk();
    Tracer tracer = otel.getTracer("io.vtctx.demo");
    RequestLog log = new RequestLog(logPath);
    NoteStore store = new NoteStore(tracer, bigNoteChars);

    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1024);
    ExecutorService perRequest = Executors.newVirtualThreadPerTaskExecutor();
    server.setExecutor(perRequest);
    server.createContext("/notes/", new NoteHandler(tracer, store, log));
    server.start();
    String carriers =
        System.getProperty(
            "jdk.virtualThreadScheduler.parallelism",
            String.valueOf(Runtime.getRuntime().availableProcessors()));
    say(
        "{\"event\":\"listening\",\"pid\":%d,\"port\":%d,\"carriers\":%s,\"java\":\"%s\"}",
        ProcessHandle.current().pid(),
        server.getAddress().getPort(),
        carriers,
        Runtime.version());

    BufferedReader stdin =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line; (line = stdin.readLine()) != null && !line.equals("quit"); ) {
      if (line.equals("flush")) {
        say("{\"event\":\"flushed\",\"requests\":%d}", log.flush(30_000));
      }
    }
    server.stop(0);
    perRequest.shutdownNow();
    otel.close();
  }

  private static void say(String format, Object... args) {
    System.out.println(String.format(format, args));
    System.out.flush();
  }
}
