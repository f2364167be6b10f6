package io.vtctx.otel;

import io.opentelemetry.context.Context;
import io.opentelemetry.context.ContextStorage;
import io.opentelemetry.context.Scope;
import java.lang.System.Logger.Level;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A {@link ContextStorage} decorator that keeps the calling thread's vtctx record equal to the span
 * of its current context: after every change (a context made current, a scope closed) the record
 * holds the current span's trace-id, span-id and flags, or valid=0 when the current context has no
 * valid span. Closing a nested scope therefore republishes the outer span, with no special case.
 *
 * <p>Every read and write of OpenTelemetry's current context goes through ContextStorage, so this
 * sees all changes without touching OpenTelemetry or the application. It is installed by {@link
 * #install()}, which {@link VtctxAutoConfigurationCustomizerProvider} calls when the SDK is
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
   * operation), so call this early, e.g. in a static initializer of the main class; repeated
   * calls do nothing.
   */
  public static void install() {
    if (installRequested.compareAndSet(false, true)) {
      ContextStorage.addWrapper(VtctxContextStorage::wrapInstalled);
    }
  }

  /**
   * True once OpenTelemetry's context storage was created with this decorator in it. False
   * before the storage exists, or if it was created before {@link #install()}.
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

  @Override
  public Scope attach(Context toAttach) {
    Scope scope = delegate.attach(toAttach);
    if (toAttach == null) return scope; // attaching null is ignored by the contract
    publish(toAttach);
    return new PublishingScope(scope);
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
  private static void publish(Context context) {
    try {
      SpanPublisher.publish(context);
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
   */
  private final class PublishingScope implements Scope {
    private final Scope scope;

    PublishingScope(Scope scope) {
      this.scope = scope;
    }

    @Override
    public void close() {
      scope.close();
      publish(delegate.current());
    }
  }
}
