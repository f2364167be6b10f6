package io.vtctx.correctness;

import io.vtctx.ThreadContext;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The marker program. Protocol with the driver (driver.py), one line each way, no sleeps:
 *
 * <pre>
 *   JVM -> READY pid=P fd=F markers=N     senders prepared, marker fd known, no marker written yet
 *   driver -> GO                          (after it saw "vtctx-reader: attached")
 *   JVM -> DONE markers=N                 every marker written, manifest on disk
 *   driver -> QUIT                        (after it stopped the reader)
 * </pre>
 *
 * A failure prints {@code FAILED <reason>} and exits 1. Arguments are {@code key=value}:
 * {@code scenario=workload|late-attach|late-attach-load manifest=PATH code=N run=N
 * timeout=SECONDS} plus the scenario's own (see {@link Workload}, {@link LateAttach}, {@link
 * LateAttachLoad}).
 */
public final class Main {
  private Main() {}

  public static void main(String[] argv) {
    try {
      System.exit(run(new Args(argv)));
    } catch (Throwable t) {
      System.out.println("FAILED " + t);
      t.printStackTrace();
      System.exit(1);
    }
  }

  private static int run(Args a) throws Exception {
    String name =
        a.choice("scenario", "workload", List.of("workload", "late-attach", "late-attach-load"));
    Path manifestPath = Path.of(a.required("manifest"));
    int code = a.integer("code", 0);
    int runNo = a.integer("run", 0);
    Deadline deadline = new Deadline(Duration.ofSeconds(a.integer("timeout", 600)));
    Scenario scenario =
        switch (name) {
          case "late-attach" -> new LateAttach(a);
          case "late-attach-load" -> new LateAttachLoad(a);
          default -> new Workload(a);
        };
    a.checkAllUsed();

    OtelPublisher.setUp(); // before any thread uses an OpenTelemetry context
    if (ThreadContext.isAgentActive() != scenario.agentAtStart()) {
      throw new IllegalStateException(
          "agent active=" + ThreadContext.isAgentActive() + ", want " + scenario.agentAtStart());
    }
    Manifest manifest = new Manifest(scenario.senders(), scenario.markers());
    try (MarkerSink sink = MarkerSink.open(scenario.markers())) {
      RunContext run = new RunContext(sink, manifest, new Ids(code, runNo));
      scenario.prepare(run, deadline);
      BufferedReader driver =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      say("READY pid=" + ProcessHandle.current().pid() + " fd=" + sink.fd() + " markers="
          + scenario.markers());
      expect(driver, "GO");
      long start = System.nanoTime();
      scenario.run(run, deadline);
      long elapsedMs = (System.nanoTime() - start) / 1_000_000;
      if (!run.failures().isEmpty()) {
        for (Throwable t : run.failures()) t.printStackTrace();
        throw new IllegalStateException(
            run.failures().size() + " sender(s) failed: " + run.failures().peek());
      }
      Map<String, Object> header = new LinkedHashMap<>();
      header.put("scenario", name);
      header.put("code", code);
      header.put("run", runNo);
      header.put("pid", ProcessHandle.current().pid());
      header.put("fd", sink.fd());
      header.put("base", MarkerSink.BASE);
      header.put("stride", MarkerSink.STRIDE);
      header.put("markers", scenario.markers());
      header.put("senders", scenario.senders());
      header.put("elapsed_ms", elapsedMs);
      header.put("java", Runtime.version().toString());
      scenario.describe(header);
      manifest.write(manifestPath, header);
      say("DONE markers=" + scenario.markers());
      expect(driver, "QUIT");
    }
    return 0;
  }

  private static void say(String line) {
    System.out.println(line);
    System.out.flush();
  }

  private static void expect(BufferedReader driver, String word) throws Exception {
    String line = driver.readLine();
    if (!word.equals(line)) throw new IllegalStateException("expected " + word + ", got " + line);
  }
}
