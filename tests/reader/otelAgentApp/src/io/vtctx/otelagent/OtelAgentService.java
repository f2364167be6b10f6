package io.vtctx.otelagent;

import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.javaagent.tooling.ExtensionClassLoader;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * A service as users of the OpenTelemetry Java agent write it: the OpenTelemetry API only and no
 * vtctx class. Each request runs on a new virtual thread that makes its server span current (as
 * the agent's server instrumentations do), works in {@link #serverWork}, then makes a child span
 * current on a fresh virtual thread that works in {@link #childWork}. The server span has the
 * attribute http.route (as the agent's HTTP server instrumentations set it), which the child
 * inherits in its record.
 *
 * <p>stdout: {"event":"ready","pid":P} once requests run; for every span made current, before its
 * work starts, {"event":"current","kind":"server"|"child","trace":T,"span":S}.
 *
 * <p>stdin, one command per line: {@code webapp} (copies of the vtctx shim jar given as the first
 * argument, in class loaders of the application's own, try to publish; one {"event":"webapp"}
 * line per copy says what each got), {@code sync} ({"event":"synced"}: every line before it is
 * out), {@code quit}.
 */
public final class OtelAgentService {
  private static final long SERVER_WORK_NS = 2_000_000;
  private static final long CHILD_WORK_NS = 2_000_000;
  private static final long REQUEST_INTERVAL_MS = 8;
  /** The server span's http.route, as HTTP server instrumentations set it. */
  static final String ROUTE = "/work/{id}";
  static volatile long sink;

  private OtelAgentService() {}

  public static void main(String[] args) throws Exception {
    Tracer tracer = GlobalOpenTelemetry.getTracer("io.vtctx.otelagent");
    Thread load = Thread.ofPlatform().daemon().name("load").start(() -> requests(tracer));
    print("{\"event\":\"ready\",\"pid\":" + ProcessHandle.current().pid() + "}");
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line; (line = in.readLine()) != null && !line.equals("quit"); ) {
      switch (line) {
        case "webapp" -> webapp(Path.of(args[0]));
        case "sync" -> print("{\"event\":\"synced\"}");
        default -> print("{\"event\":\"unknown\"}");
      }
    }
    load.interrupt();
  }

  private static void requests(Tracer tracer) {
    try {
      while (true) {
        Thread.ofVirtual().start(() -> request(tracer));
        Thread.sleep(REQUEST_INTERVAL_MS);
      }
    } catch (InterruptedException e) {
      // quit
    }
  }

  private static void request(Tracer tracer) {
    Span server =
        tracer
            .spanBuilder("GET " + ROUTE)
            .setSpanKind(SpanKind.SERVER)
            .setAttribute("http.route", ROUTE)
            .startSpan();
    try (Scope scope = server.makeCurrent()) {
      printCurrent("server", server);
      serverWork();
      Thread child = Thread.ofVirtual().start(Context.current().wrap(() -> child(tracer)));
      child.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      server.end();
    }
  }

  private static void child(Tracer tracer) {
    Span span = tracer.spanBuilder("child").startSpan();
    try (Scope scope = span.makeCurrent()) {
      printCurrent("child", span);
      childWork();
    } finally {
      span.end();
    }
  }

  static void serverWork() {
    sink += burn(SERVER_WORK_NS);
  }

  static void childWork() {
    sink += burn(CHILD_WORK_NS);
  }

  private static long burn(long nanos) {
    long end = System.nanoTime() + nanos;
    long x = 1;
    while (System.nanoTime() < end) {
      for (int i = 0; i < 1000; i++) x = x * 6364136223846793005L + 1442695040888963407L;
    }
    return x;
  }

  private static void printCurrent(String kind, Span span) {
    SpanContext c = span.getSpanContext();
    print("{\"event\":\"current\",\"kind\":\"" + kind + "\",\"trace\":\"" + c.getTraceId()
        + "\",\"span\":\"" + c.getSpanId() + "\"}");
  }

  private static void print(String line) {
    synchronized (System.out) {
      System.out.println(line);
    }
  }

  /**
   * Copies of the shim in class loaders the application makes: a plain one (a web application's)
   * and one named like the OpenTelemetry Java agent's extension class loader. Neither may get
   * anything from the agent.
   */
  private static void webapp(Path shimJar) throws Exception {
    URL[] urls = {shimJar.toUri().toURL()};
    ClassLoader parent = ClassLoader.getPlatformClassLoader();
    try (URLClassLoader plain = new URLClassLoader("webapp", urls, parent);
        URLClassLoader forged = new ExtensionClassLoader(urls, parent)) {
      printCopy("plain", plain);
      printCopy("forged_extension_loader", forged);
    }
  }

  private static void printCopy(String name, ClassLoader loader) throws Exception {
    Class<?> api = Class.forName("io.vtctx.ThreadContext", true, loader);
    boolean active = (boolean) api.getMethod("isAgentActive").invoke(null);
    api.getMethod("setHex", String.class, String.class, int.class)
        .invoke(null, "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331", 1);
    long record = (long) api.getMethod("recordAddress").invoke(null);
    print("{\"event\":\"webapp\",\"loader\":\"" + name + "\",\"active\":" + active
        + ",\"record\":" + record + ",\"buffer\":\"" + bufferOf(loader) + "\"}");
  }

  /** What the copy's own currentRecordBuffer native gives when called directly. */
  private static String bufferOf(ClassLoader loader) throws Exception {
    Class<?> natives = Class.forName("io.vtctx.internal.AgentNatives", true, loader);
    Method buffer = natives.getDeclaredMethod("currentRecordBuffer");
    buffer.setAccessible(true);
    try {
      return buffer.invoke(null) == null ? "null" : "a buffer";
    } catch (InvocationTargetException e) {
      return e.getCause().getClass().getSimpleName();
    }
  }
}
