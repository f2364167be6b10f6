package io.vtctx.demo;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntConsumer;

/**
 * HTTP load for the demo on loopback, in its own JVM so that its CPU is not the service's: CLIENTS
 * virtual threads request small notes in a loop (THINK_MS pause between requests), and every
 * SLOW_EVERY_MS one more request asks for the big note.
 *
 * <p>Usage: LoadGenerator PORT WARMUP_S SECONDS CLIENTS THINK_MS SLOW_EVERY_MS. Runs a warm-up
 * (so the service's hot code is compiled before profiling), prints {@code {"event":"warm"}},
 * waits for {@code go} on stdin, runs the measured phase printing {@code {"event":"progress",...}}
 * every second, waits for every response and prints {@code {"event":"done",...}}.
 */
public final class LoadGenerator {
  private final HttpClient client;
  private final String base;
  private final int clients;
  private final long thinkMillis;
  private final long slowEveryMillis;
  final LongAdder requests = new LongAdder();
  final LongAdder slow = new LongAdder();
  final LongAdder errors = new LongAdder();

  private LoadGenerator(int port, int clients, long thinkMillis, long slowEveryMillis) {
    this.client =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .executor(Executors.newVirtualThreadPerTaskExecutor())
            .build();
    this.base = "http://127.0.0.1:" + port + "/notes/";
    this.clients = clients;
    this.thinkMillis = thinkMillis;
    this.slowEveryMillis = slowEveryMillis;
  }

  public static void main(String[] args) throws Exception {
    int port = Integer.parseInt(args[0]);
    double warmupSeconds = Double.parseDouble(args[1]);
    double seconds = Double.parseDouble(args[2]);
    LoadGenerator load =
        new LoadGenerator(
            port, Integer.parseInt(args[3]), Long.parseLong(args[4]), Long.parseLong(args[5]));
    load.run(warmupSeconds, null);
    say(
        "{\"event\":\"warm\",\"requests\":%d,\"errors\":%d}",
        load.requests.sum(),
        load.errors.sum());
    BufferedReader stdin =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    if (!"go".equals(stdin.readLine())) return;
    load.requests.reset();
    load.slow.reset();
    load.errors.reset();
    load.run(seconds, load::progress);
    say(
        "{\"event\":\"done\",\"requests\":%d,\"slow\":%d,\"errors\":%d}",
        load.requests.sum(),
        load.slow.sum(),
        load.errors.sum());
  }

  /** Runs the load for {@code seconds}, calling {@code tick} (if any) every second. */
  private void run(double seconds, IntConsumer tick) throws Exception {
    long start = System.nanoTime();
    long end = start + (long) (seconds * 1e9);
    List<Thread> threads = new ArrayList<>();
    try (ExecutorService slowRequests = Executors.newVirtualThreadPerTaskExecutor()) {
      for (int c = 0; c < clients; c++) {
        threads.add(Thread.ofVirtual().name("client-" + c).start(() -> cheapLoop(end)));
      }
      long nextSlow = start + slowEveryMillis * 500_000L; // the first one half an interval in
      int nextTick = 1;
      for (long now; (now = System.nanoTime()) < end; ) {
        long nextTickAt = start + nextTick * 1_000_000_000L;
        if (now >= nextSlow) {
          slowRequests.submit(() -> fetch(NoteStore.BIG_ID, slow));
          nextSlow += slowEveryMillis * 1_000_000L;
        } else if (now >= nextTickAt) {
          if (tick != null) tick.accept(nextTick);
          nextTick++;
        } else {
          long wakeAt = Math.min(Math.min(nextSlow, nextTickAt), end);
          Thread.sleep(Math.max(1, (wakeAt - now) / 1_000_000L));
        }
      }
      for (Thread t : threads) t.join();
    } // close() waits for the slow requests still running
  }

  private void cheapLoop(long end) {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    while (System.nanoTime() < end) {
      long id = 1 + random.nextInt(NoteStore.NOTES);
      if (id == NoteStore.BIG_ID) continue;
      fetch(id, null);
      try {
        Thread.sleep(thinkMillis);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private void fetch(long id, LongAdder kind) {
    HttpRequest request = HttpRequest.newBuilder(URI.create(base + id)).GET().build();
    try {
      HttpResponse<Void> response = client.send(request, HttpResponse.BodyHandlers.discarding());
      if (response.statusCode() != 200) errors.increment();
    } catch (Exception e) {
      errors.increment();
      if (e instanceof InterruptedException) Thread.currentThread().interrupt();
    }
    requests.increment();
    if (kind != null) kind.increment();
  }

  private void progress(int elapsedSeconds) {
    say(
        "{\"event\":\"progress\",\"elapsed_s\":%d,\"requests\":%d,\"slow\":%d,\"errors\":%d}",
        elapsedSeconds,
        requests.sum(),
        slow.sum(),
        errors.sum());
  }

  private static void say(String format, Object... args) {
    System.out.println(String.format(format, args));
    System.out.flush();
  }
}
