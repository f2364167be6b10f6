package io.vtctx.otel;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.vtctx.internal.ThreadRecord;
import java.lang.System.Logger.Level;

/**
 * {@link VtctxContextStorage} in place of OpenTelemetry's default storage: a thread local that
 * holds each thread's current context AND its record, so a scope change costs one thread-local
 * lookup (the attach; a close on its own thread none) instead of the default's lookups and sets
 * plus one more for the record.
 *
 * <p>Behaves as OpenTelemetry's ThreadLocalContextStorage (1.68): attaching null or the context
 * that is already current returns the no-op scope and changes nothing; a scope's close restores the
 * context from before its attach only if its context is still current on the closing thread (and
 * it was not closed before), and is ignored otherwise (logged at DEBUG); {@link #current()} is null
 * on a thread that never attached anything; the root context is OpenTelemetry's.
 *
 * <p>Lifetime: a {@link ThreadState} is reachable from its thread's thread local and from the
 * scopes opened on that thread. A scope uses its state only on the owner thread, so a scope closed
 * on another thread never touches the owner's context or record (that thread may have ended and
 * its record may belong to a new thread); it acts on the closing thread's own state, exactly as the
 * default storage acts on the closing thread's thread local.
 */
final class ThreadLocalRecordStorage extends VtctxContextStorage {
  private static final System.Logger LOG = System.getLogger("io.vtctx");
  private static final ThreadLocal<ThreadState> STATE = new ThreadLocal<>();

  /** One thread's current context and record, used only by that thread. */
  private static final class ThreadState {
    final Thread owner;
    Context current; // what the default storage's thread local would hold
    private ThreadRecord record; // null until the agent gives one (absent, or not attached yet)

    ThreadState(Thread owner) {
      this.owner = owner;
    }

    /** The thread's record, looked up until there is one (the agent may be attached later). */
    ThreadRecord record() {
      ThreadRecord r = record;
      return r != null ? r : (record = ThreadRecord.current());
    }
  }

  ThreadLocalRecordStorage() {}

  @Override
  public Scope attach(Context toAttach) {
    if (toAttach == null) return Scope.noop();
    ThreadState state = STATE.get();
    if (state == null) {
      state = new ThreadState(Thread.currentThread());
      STATE.set(state); // throws where the default storage's set would (thread without locals)
    }
    Context before = state.current;
    if (toAttach == before) return Scope.noop();
    state.current = toAttach;
    ThreadRecord record = state.record();
    if (record == null) return new RecordScope(state, before, toAttach);
    AttributeCopier copier = SpanPublisher.copierOf(record);
    if (copier == null) {
      publish(record, toAttach, null, null);
      return new RecordScope(state, before, toAttach);
    }
    // What the span current until now had inherited, for the close to restore.
    Span outer = copier.span();
    String[] outerInherited = copier.inherited();
    publish(record, toAttach, null, null);
    return new AttributeRestoringScope(state, before, toAttach, outer, outerInherited);
  }

  @Override
  public Context current() {
    ThreadState state = STATE.get();
    return state != null ? state.current : null;
  }

  @Override
  public String toString() {
    return "VtctxContextStorage in place of OpenTelemetry's thread-local storage";
  }

  /** Restores the context from before its attach and republishes it. */
  private static class RecordScope implements Scope {
    private final ThreadState state;
    private final Context before;
    private final Context attached;
    private boolean closed;

    RecordScope(ThreadState state, Context before, Context attached) {
      this.state = state;
      this.before = before;
      this.attached = attached;
    }

    @Override
    public final void close() {
      boolean own = state.owner == Thread.currentThread();
      ThreadState s = own ? state : STATE.get(); // the closing thread's, as the default's close
      if (closed || s == null || s.current != attached) {
        LOG.log(Level.DEBUG, "vtctx: closing a scope whose context is not current; ignored");
        return;
      }
      closed = true;
      s.current = before;
      ThreadRecord record = s.record();
      if (record == null) return;
      if (own) {
        publish(record, before, outerSpan(), outerInherited());
      } else {
        publish(record, before, null, null);
      }
    }

    /** With span attributes copied: the span that was current when this scope was opened. */
    Span outerSpan() {
      return null;
    }

    /** With span attributes copied: what {@link #outerSpan} had inherited from its parent. */
    String[] outerInherited() {
      return null;
    }
  }

  /**
   * A scope opened while span attributes are copied: it also keeps the span that was current when
   * it was opened and what that span had inherited, so that closing back to it restores those (on
   * its own thread only). A subclass, so that scopes without attributes stay small.
   */
  private static final class AttributeRestoringScope extends RecordScope {
    private final Span outer;
    private final String[] outerInherited;

    AttributeRestoringScope(
        ThreadState state, Context before, Context attached, Span outer, String[] outerInherited) {
      super(state, before, attached);
      this.outer = outer;
      this.outerInherited = outerInherited;
    }

    @Override
    Span outerSpan() {
      return outer;
    }

    @Override
    String[] outerInherited() {
      return outerInherited;
    }
  }
}
