package io.vtctx.otel;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.ContextStorage;
import io.vtctx.internal.ThreadRecord;
import java.lang.System.Logger.Level;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * OpenTelemetry context storage that keeps the calling thread's vtctx record equal to the span of
 * its current context: after every change (a context made current, a scope closed) the record
 * holds the current span's trace-id, span-id and flags, or valid=0 when the current context has no
 * valid span. Closing a nested scope therefore republishes the outer span, with no special case.
 *
 * <p>Every read and write of OpenTelemetry's current context goes through ContextStorage, so this
 * sees all changes without touching OpenTelemetry or the application. It also copies configured
 * span attributes into the record ({@link #setRecordAttributes}, {@code
 * otel.vtctx.record.attributes}; see {@link AttributeCopier} for the rule). It is installed by
 * {@link #install()}, which {@link VtctxAutoConfigurationCustomizerProvider} calls when the SDK is
 * autoconfigured (also inside the OpenTelemetry Java agent, as an extension). Without the vtctx
 * agent it only keeps the context.
 *
 * <p>Two forms, chosen by {@link #wrap}: over OpenTelemetry's default storage (a thread local) it
 * takes that storage's place with the same behaviour and one thread local for both the context and
 * the thread's record ({@link ThreadLocalRecordStorage}: fewer thread-local lookups than the
 * default storage alone); over any other storage it decorates it ({@link DecoratingStorage}).
 */
public abstract sealed class VtctxContextStorage implements ContextStorage
    permits DecoratingStorage, ThreadLocalRecordStorage {
  private static final System.Logger LOG = System.getLogger("io.vtctx");
  private static final AtomicBoolean installRequested = new AtomicBoolean();
  private static volatile boolean installed;
  private static final AtomicBoolean failureLogged = new AtomicBoolean();

  VtctxContextStorage() {}

  /**
   * Registers vtctx with {@link ContextStorage#addWrapper}. It takes effect only if OpenTelemetry
   * has not created its context storage yet (that happens at the first context operation), so call
   * this early, e.g. in a static initializer of the main class; repeated calls do nothing.
   */
  public static void install() {
    if (installRequested.compareAndSet(false, true)) {
      ContextStorage.addWrapper(VtctxContextStorage::wrapInstalled);
    }
  }

  /**
   * True once OpenTelemetry's context storage was created with vtctx in it. False before the
   * storage exists, or if it was created before {@link #install()}.
   */
  public static boolean isInstalled() {
    return installed;
  }

  /**
   * A vtctx storage over {@code delegate} (for callers that build their own storage chain): in
   * place of OpenTelemetry's default storage, or decorating any other one.
   */
  public static ContextStorage wrap(ContextStorage delegate) {
    if (delegate instanceof VtctxContextStorage) return delegate;
    return delegate == ContextStorage.defaultStorage()
        ? new ThreadLocalRecordStorage()
        : new DecoratingStorage(delegate);
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

  /**
   * Makes {@code record}, the caller's own, hold the span of {@code context}; never lets a
   * publishing failure break the application's context handling. {@code restoreSpan} and {@code
   * restoreInherited}: see {@link AttributeCopier#prepare} (null when a context is attached).
   *
   * <p>This is the short path: a span the record already holds, or one whose ids the thread's
   * cache holds (entering a known child, closing back to the parent). It is kept small so that C2
   * inlines it into every attach and close; everything else (decoding new ids, copying attributes)
   * is a call into {@link SpanPublisher}. With both in one method, C2 compiled it with the decoder
   * inlined (~7 KB of code), too big to inline anywhere: a call on every scope change.
   */
  static void publish(
      ThreadRecord record, Context context, Span restoreSpan, String[] restoreInherited) {
    try {
      if (SpanPublisher.copiesNoAttributes(record)) {
        SpanPublisher.publish(record, SpanPublisher.spanContextOf(context), null);
      } else {
        SpanPublisher.publish(record, context, restoreSpan, restoreInherited);
      }
    } catch (RuntimeException | LinkageError e) {
      publishFailed(e);
    }
  }

  static void publishFailed(Throwable e) {
    if (failureLogged.compareAndSet(false, true)) {
      LOG.log(Level.WARNING, "vtctx: publishing the current span failed", e);
    }
  }
}
