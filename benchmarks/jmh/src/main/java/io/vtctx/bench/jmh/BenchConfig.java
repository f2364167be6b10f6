package io.vtctx.bench.jmh;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.ContextStorage;
import io.opentelemetry.context.Scope;
import io.vtctx.ThreadContext;
import io.vtctx.internal.TestNatives;
import io.vtctx.otel.VtctxContextStorage;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What this fork measures, from the system properties {@code run.py} appends (also read by the
 * service benchmark, benchmarks/service, which compiles this class in):
 *
 * <ul>
 *   <li>{@code vtctx.bench.config}: the configuration's name (for messages and reader logs);
 *   <li>{@code vtctx.bench.expectVtctx}: true if libvtctx.so is loaded, false if not (no agent or
 *       the empty-callback fixture); checked, so a wrong command line fails instead of measuring
 *       the wrong thing;
 *   <li>{@code vtctx.bench.shim}: true to install the shim's OpenTelemetry context storage (span
 *       changes are written into the record); checked by reading the record back;
 *   <li>{@code vtctx.bench.reader} ({@code profile} or {@code syscalls}), {@code
 *       vtctx.bench.readerPath}, {@code vtctx.bench.readerLog}: a vtctx-reader attached to this
 *       fork for the whole trial.
 * </ul>
 */
public record BenchConfig(
    String name,
    boolean expectVtctx,
    boolean shim,
    String reader,
    String readerPath,
    String readerLog) {

  public static BenchConfig fromSystemProperties() {
    return new BenchConfig(
        System.getProperty("vtctx.bench.config", "unnamed"),
        Boolean.getBoolean("vtctx.bench.expectVtctx"),
        Boolean.getBoolean("vtctx.bench.shim"),
        System.getProperty("vtctx.bench.reader", ""),
        System.getProperty("vtctx.bench.readerPath", ""),
        System.getProperty("vtctx.bench.readerLog", ""));
  }

  public void installShimIfAsked() {
    if (shim) VtctxContextStorage.install();
  }

  /** Fails the trial unless the agent and the shim are exactly what the configuration says. */
  public void checkAgentAndShim(Tracer tracer) throws InterruptedException {
    boolean active = expectVtctx && ThreadContext.isAgentActive(); // no probe without the agent
    if (expectVtctx && !active) fail("libvtctx.so is expected but not active");
    if (!expectVtctx && agentNativesLinked()) fail("libvtctx.so is loaded but not expected");
    boolean decorated = ContextStorage.get() instanceof VtctxContextStorage;
    if (decorated != shim) {
      fail("shim context storage installed=" + decorated + ", expected " + shim);
    }
    if (!shim) return;
    // A span made current on a virtual thread must land in that thread's record.
    Span span = tracer.spanBuilder("check").setNoParent().startSpan();
    AtomicReference<byte[]> seen = new AtomicReference<>();
    Thread.ofVirtual()
        .start(
            () -> {
              try (Scope s = span.makeCurrent()) {
                ByteBuffer record = TestNatives.currentRecordBuffer();
                byte[] spanId = new byte[8];
                record.get(16, spanId);
                seen.set(spanId);
              }
            })
        .join();
    span.end();
    if (!Arrays.equals(seen.get(), span.getSpanContext().getSpanIdBytes())) {
      fail("the shim did not write the current span into the record");
    }
  }

  /** The vtctx-reader this configuration asks for, attached and running; null if none. */
  ReaderProcess startReaderIfAsked(String benchmark) throws Exception {
    if (reader.isEmpty()) return null;
    if (!expectVtctx) fail("a reader needs libvtctx.so");
    return ReaderProcess.start(
        Path.of(readerPath), reader, ProcessHandle.current().pid(), Path.of(readerLog),
        name + " " + benchmark);
  }

  private static boolean agentNativesLinked() {
    try {
      TestNatives.isActive();
      return true;
    } catch (UnsatisfiedLinkError e) {
      return false;
    }
  }

  private void fail(String message) {
    throw new IllegalStateException("configuration " + name + ": " + message);
  }
}
