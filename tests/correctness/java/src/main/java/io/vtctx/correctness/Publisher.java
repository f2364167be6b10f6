package io.vtctx.correctness;

/**
 * How a sender makes its context current: through the shim's API ({@link ApiPublisher}) or
 * through OpenTelemetry SDK spans and the shim's ContextStorage decorator ({@link
 * OtelPublisher}). One instance per thread, used only by that thread.
 */
interface Publisher {
  /** The thread starts its work (OpenTelemetry: its root span becomes current). */
  void begin(int sender);

  /** Makes the context of marker {@code seq} current. */
  void open(int sender, int seq);

  /**
   * The context current on this thread, from the publisher's own Java-side state (never read
   * back from the record): the ground truth for a marker written now.
   */
  Context current();

  /** Ends the scope opened by the last {@link #open}. */
  void close();

  /** The thread's work ends; {@code leaky}: the last scope was left open on purpose. */
  void end(boolean leaky);

  /** "api" or "otel", for the manifest. */
  String name();
}
