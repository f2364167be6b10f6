package io.vtctx.bench.jmh;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A vtctx-reader attached to this JVM (the JMH fork, whose pid is only known inside it): started
 * before the trial, waited on until it prints {@code vtctx-reader: attached}, stopped with SIGTERM
 * after the trial. Its summary line (samples or events, BPF run time with --bpf-stats) is appended
 * to the log file, prefixed by a label, for {@code summarize.py}. Its data output is discarded.
 */
final class ReaderProcess {
  private static final long ATTACH_TIMEOUT_S = 60;
  private static final long STOP_TIMEOUT_S = 30;

  private final Process process;
  private final Path log;
  private final String label;
  private final List<String> stderr = new ArrayList<>();
  private final CountDownLatch attached = new CountDownLatch(1);
  private final Thread pump;

  private ReaderProcess(Process process, Path log, String label) {
    this.process = process;
    this.log = log;
    this.label = label;
    this.pump = Thread.ofPlatform().daemon().name("reader-stderr").start(this::pumpStderr);
  }

  static ReaderProcess start(Path reader, String mode, long pid, Path log, String label)
      throws Exception {
    List<String> command = new ArrayList<>(List.of(reader.toString(), mode, "--pid", "" + pid));
    switch (mode) {
      case "profile" -> command.addAll(List.of("--hz", "99"));
      case "syscalls" -> command.addAll(List.of("--syscall", "write"));
      default -> throw new IllegalArgumentException("unknown reader mode " + mode);
    }
    command.add("--bpf-stats");
    Process p =
        new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    ReaderProcess r = new ReaderProcess(p, log, label);
    if (!r.attached.await(ATTACH_TIMEOUT_S, TimeUnit.SECONDS) || !p.isAlive()) {
      p.destroyForcibly();
      throw new IllegalStateException("vtctx-reader did not attach: " + r.lines());
    }
    return r;
  }

  void stop() throws Exception {
    // SIGTERM: the reader drains, prints its summary and exits 0. Through the ProcessHandle:
    // Process.destroy() would also close our end of its stderr before the summary arrives.
    process.toHandle().destroy();
    if (!process.waitFor(STOP_TIMEOUT_S, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new IllegalStateException("vtctx-reader did not stop: " + lines());
    }
    pump.join(TimeUnit.SECONDS.toMillis(STOP_TIMEOUT_S));
    String summary =
        lines().stream().filter(l -> l.startsWith("vtctx-reader: summary:")).findFirst().orElse("");
    if (process.exitValue() != 0 || summary.isEmpty()) {
      throw new IllegalStateException(
          "vtctx-reader exited " + process.exitValue() + ": " + lines());
    }
    Files.writeString(
        log,
        label + " " + summary + "\n",
        StandardOpenOption.CREATE,
        StandardOpenOption.APPEND);
  }

  private synchronized List<String> lines() {
    return new ArrayList<>(stderr);
  }

  private void pumpStderr() {
    try (BufferedReader in =
        new BufferedReader(
            new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8))) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        synchronized (this) {
          stderr.add(line);
        }
        if (line.equals("vtctx-reader: attached")) attached.countDown();
      }
    } catch (IOException e) {
      // the process is gone; stop() reports its exit status
    }
    attached.countDown(); // unblock start(), which then sees the process dead
  }
}
