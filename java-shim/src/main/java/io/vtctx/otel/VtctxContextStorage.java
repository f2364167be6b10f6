package io.vtctx.otel;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.ContextStorage;
import io.opentelemetry.context.Scope;
import io.vtctx.internal.ThreadRecord;
import java.lang.System.Logger.Level;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A {@link ContextStorage} decorator that keeps the calling thread's vtctx record equal to the span
 * of its current context: after every change (a context made current, a scope closed) the record
 * holds the current span's trace-id, span-id and flags, or valid=0 when the current context has no
 * valid span. Closing a nested scope therefore republishes the outer span, with no special case.
 *
 * <p>Every read and write of OpenTelemetry's current context goes through ContextStorage, so this
 * sees all changes without touching OpenTelemetry or the application. It also copies configured
 * span attributes into the record ({@link #setRecordAttributes}, {@code
 * otel.vtctx.record.attributes}; see {@link AttributeCopier} for the rule). It is installed by
 * {@link #install()}, which {@link VtctxAutoConfigurationCustomizerProvider} calls when the SDK is
 * autoconfigured (also inside the OpenTelemetry Java agent, as an extension). Without the vtctx
 * agent it only delegates.
 */
public final class VtctxContextStorage implements ContextStorage {
  private static final System.Logger LOG = System.getLogger("io.vtctx");
  private static final AtomicBoolean installRequested = new AtomicBoolean();
  private static volatile boolean installed;
  private static final AtomicBoolean failureLogged = new AtomicBoolean();

  private final ContextStorage delegate;

  private VtctxContextStorage(ContextStorage delegate) {
    this.delegate = delegate;
  }

  /**
   * Registers the decorator with {@link ContextStorage#addWrapper}. It takes effect only if
   * OpenTelemetry has not created its context storage yet (that happens at the first context
   * operation), so call this early, e.g. in a static initializer of the main class; repeated calls
   * do nothing.
   */
  public static void install() {
    if (installRequested.compareAndSet(false, true)) {
      ContextStorage.addWrapper(VtctxContextStorage::wrapInstalled);
    }
  }

  /**
   * True once OpenTelemetry's context storage was created with this decorator in it. False before
   * the storage exists, or if it was created before {@link #install()}.
   */
  public static boolean isInstalled() {
    return installed;
  }

  /** Decorates {@code delegate} (for callers that build their own storage chain). */
  public static ContextStorage wrap(ContextStorage delegate) {
    return delegate instanceof VtctxContextStorage ? delegate : new VtctxContextStorage(delegate);
  }

  private static ContextStorage wrapInstalled(ContextStorage delegate) {
    installed = true;
    return wrap(delegate);
  }

  /**
   * Sets the span attributes copied into records (see docs/shim.md), replacing what {@code
   * otel.vtctx.record.attributes} configured; an empty collection stops copying. Takes effect in
   * each thread at its next span change.
   *
   * @param attributeNames span attribute names, e.g. {@code http.route}; string attributes only
   */
  public static void setRecordAttributes(Collection<String> attributeNames) {
    RecordAttributeConfig.set(List.copyOf(attributeNames));
  }

  /** The span attributes copied into records (empty: none). */
  public static List<String> recordAttributes() {
    return RecordAttributeConfig.keys().names();
  }

  @Override
  public Scope attach(Context toAttach) {
    Scope scope = delegate.attach(toAttach);
    if (toAttach == null) return scope; // attaching null is ignored by the contract
    ThreadRecord record = ThreadRecord.current(); // null without the agent
    if (record == null) return new PublishingScope(scope, Thread.currentThread(), null, null, null);
    AttributeCopier copier = SpanPublisher.copierOf(record);
    // Unchanged span, no attributes copied: the record already holds this span, and closing the
    // scope restores a context with that same span (the record mirrors the current context, see
    // "One writer per thread"), so neither the attach nor the close has anything to write: hand
    // back the delegate's own scope.
    if (copier == null && SpanPublisher.holdsSpanOf(record, toAttach)) return scope;
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

  // Never lets a publishing failure break the application's context handling.
  private static void publish(
      ThreadRecord record, Context context, Span restoreSpan, String[] restoreInherited) {
    try {
      SpanPublisher.publish(record, context, restoreSpan, restoreInherited);
    } catch (RuntimeException | LinkageError e) {
      if (failureLogged.compareAndSet(false, true)) {
        LOG.log(Level.WARNING, "vtctx: publishing the current span failed", e);
      }
    }
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
