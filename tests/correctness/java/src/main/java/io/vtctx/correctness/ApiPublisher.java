package io.vtctx.correctness;

import io.vtctx.ThreadContext;

/** Publishes through {@link ThreadContext}: set at open, clear at close. */
final class ApiPublisher implements Publisher {
  private static final int SAMPLED = 0x01;
  private final Ids ids;
  private Context current;

  ApiPublisher(Ids ids) {
    this.ids = ids;
  }

  @Override
  public void begin(int sender) {}

  @Override
  public void open(int sender, int seq) {
    current = new Context(ids.traceHigh(), Ids.traceLow(sender), Ids.span(sender, seq), SAMPLED);
    ThreadContext.set(current.traceHigh(), current.traceLow(), current.span(), current.flags());
  }

  @Override
  public Context current() {
    if (current == null) throw new IllegalStateException("no context is current");
    return current;
  }

  @Override
  public void close() {
    ThreadContext.clear();
    current = null;
  }

  @Override
  public void end(boolean leaky) {}

  @Override
  public String name() {
    return "api";
  }
}
