package io.vtctx.otel;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.ContextStorage;
import io.opentelemetry.context.Scope;
import io.vtctx.internal.ThreadRecord;

/**
 * {@link VtctxContextStorage} as a decorator of a storage other than OpenTelemetry's default: the
 * delegate keeps the context, this publishes after every change.
 */
final class DecoratingStorage extends VtctxContextStorage {
  private final ContextStorage delegate;

  DecoratingStorage(ContextStorage delegate) {
    this.delegate = delegate;
  }

  @Override
  public Scope attach(Context toAttach) {
    Scope scope = delegate.attach(toAttach);
    if (toAttach == null) return scope; // attaching null is ignored by the contract
    ThreadRecord record = ThreadRecord.current(); // null without the agent
    if (record == null) return new PublishingScope(scope, Thread.currentThread(), null, null, null);
    if (SpanPublisher.copiesNoAttributes(record)) {
      try {
        SpanContext spanContext = SpanPublisher.spanContextOf(toAttach);
        // Unchanged span: the record already holds it, and closing the scope restores a context
        // with that same span (the record mirrors the current context, see "One writer per
        // thread"), so neither the attach nor the close has anything to write: hand back the
        // delegate's own scope.
        if (record.holds(spanContext)) return scope;
        SpanPublisher.publish(record, spanContext, null);
      } catch (RuntimeException | LinkageError e) {
        publishFailed(e);
      }
      return new PublishingScope(scope, Thread.currentThread(), record, null, null);
    }
    AttributeCopier copier = SpanPublisher.copierOf(record);
    // What the span current until now had inherited, for the close to restore (attributes only).
    Span outer = copier != null ? copier.span() : null;
    String[] outerInherited = copier != null ? copier.inherited() : null;
    publish(record, toAttach, null, null);
    return new PublishingScope(scope, Thread.currentThread(), record, outer, outerInherited);
  }

  @Override
  public Context current() {
    return delegate.current();
  }

  @Override
  public Context root() {
    return delegate.root();
  }

  @Override
  public String toString() {
    return "VtctxContextStorage decorating " + delegate;
  }

  /**
   * Closes the delegate's scope, then republishes whatever is current afterwards: normally the
   * context from before the attach, and still the truth if the delegate ignored an out-of-order
   * close.
   *
   * <p>It keeps the record it published to, to skip a second thread-local lookup, but uses it only
   * on the thread that owns it: OpenTelemetry wants scopes closed on their own thread, but a
   * misplaced close must never write into another thread's record (that thread may have ended and
   * its record may belong to a new thread). A scope opened before the agent was attached has no
   * record and looks it up.
   *
   * <p>With span attributes copied, it also keeps the span that was current when it was opened and
   * what that span had inherited from its parent, so that closing back to it restores those (on its
   * own thread only).
   */
  private final class PublishingScope implements Scope {
    private final Scope scope;
    private final Thread owner;
    private final ThreadRecord record;
    private final Span outer;
    private final String[] outerInherited;

    PublishingScope(
        Scope scope, Thread owner, ThreadRecord record, Span outer, String[] outerInherited) {
      this.scope = scope;
      this.owner = owner;
      this.record = record;
      this.outer = outer;
      this.outerInherited = outerInherited;
    }

    @Override
    public void close() {
      scope.close();
      if (record != null && Thread.currentThread() == owner) {
        publish(record, delegate.current(), outer, outerInherited);
      } else {
        ThreadRecord r = ThreadRecord.current();
        if (r != null) publish(r, delegate.current(), null, null);
      }
    }
  }
}
