package io.vtctx.bench.service;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;

/**
 * How run.py drives a server process: one JSON line on stdout once it listens, then commands on
 * stdin, one per line: {@code stats} answers one JSON line from {@code stats}; {@code quit} or the
 * end of input returns (the caller then stops the server).
 */
final class ControlLoop {
  private ControlLoop() {}

  static void say(String format, Object... args) {
    System.out.println(String.format(format, args));
    System.out.flush();
  }

  static void run(Supplier<String> stats) throws IOException {
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line; (line = in.readLine()) != null && !line.equals("quit"); ) {
      if (line.equals("stats")) say("%s", stats.get());
    }
  }

  /** The virtual-thread scheduler's parallelism: the number of carriers. */
  static String carriers() {
    return System.getProperty(
        "jdk.virtualThreadScheduler.parallelism",
        String.valueOf(Runtime.getRuntime().availableProcessors()));
  }
}
