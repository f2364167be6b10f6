package io.vtctx.internal;

import java.lang.System.Logger.Level;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Whether the vtctx agent is there to publish through. Decided at first use, then cheap: one
 * volatile read once the agent is active.
 *
 * <p>The agent can also be attached to a running JVM (jcmd JVMTI.agent_load, the Attach API) after
 * this class found it missing. HotSpot tries again to resolve a native method at every call until
 * it succeeds, so probing again works: while the agent is absent, the shim probes again at most
 * once per {@code io.vtctx.reprobeMillis} (default 1000 ms; 0 = never), which costs one {@link
 * System#nanoTime()} per use in between. Once active, the agent stays (it cannot be unloaded, and
 * its records stay mapped until the process exits).
 */
public final class AgentLink {
  private static final System.Logger LOG = System.getLogger("io.vtctx");
  private static final long NEVER = Long.MIN_VALUE;
  private static final long REPROBE_NANOS =
      Math.max(0, Long.getLong("io.vtctx.reprobeMillis", 1000)) * 1_000_000L;

  private static volatile boolean active;
  // When the next probe is due (NEVER = no probe yet). A CAS on it elects the one thread that
  // probes again, so threads do not pile into the failing native lookup together.
  private static final AtomicLong nextProbe = new AtomicLong(NEVER);

  private AgentLink() {}

  /** True if the agent is loaded and active; probes (rarely) while it is not. */
  public static boolean active() {
    return active || probeIfDue();
  }

  private static boolean probeIfDue() {
    long due = nextProbe.get();
    if (due == NEVER) return firstProbe();
    long now = System.nanoTime();
    if (REPROBE_NANOS == 0 || now - due < 0 || !nextProbe.compareAndSet(due, now + REPROBE_NANOS)) {
      return active;
    }
    if (probe() == null) {
      active = true;
      LOG.log(Level.INFO, "vtctx: agent attached, publishing thread context from now on");
    }
    return active;
  }

  // Under a lock so that every thread's first use sees the decision (none is dropped while another
  // thread probes). The decision is recorded before logging: a logger that itself changes the
  // context re-enters here and must find it made.
  private static synchronized boolean firstProbe() {
    if (nextProbe.get() != NEVER) return active;
    String absent = probe();
    active = absent == null;
    nextProbe.set(System.nanoTime() + REPROBE_NANOS);
    if (absent == null) {
      LOG.log(Level.DEBUG, "vtctx: agent active, publishing thread context");
    } else {
      LOG.log(
          Level.INFO,
          "vtctx: {0}; thread context is not published (load it with"
              + " -agentpath:/path/to/libvtctx.so{1})",
          absent,
          REPROBE_NANOS == 0
              ? ""
              : ", or attach it: it is picked up within " + REPROBE_NANOS / 1_000_000 + " ms");
    }
    return active;
  }

  /** Null if the agent is active, else why not. */
  private static String probe() {
    try {
      return AgentNatives.isActive() ? null : "agent libvtctx.so is loaded but not active";
    } catch (LinkageError e) {
      // UnsatisfiedLinkError: the natives live in the agent library, which is not loaded.
      return "agent libvtctx.so is not loaded";
    }
  }
}
