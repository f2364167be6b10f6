package io.vtctx.internal;

import java.lang.System.Logger.Level;

/**
 * Whether the vtctx agent is there to publish through. Decided at first use; after that, asking
 * costs two volatile reads (plain loads on x86-64), with or without the agent.
 *
 * <p>The agent can also be attached to a running JVM (jcmd JVMTI.agent_load, the Attach API) after
 * this class found it missing. HotSpot tries again to resolve a native method at every call until
 * it succeeds, so probing again works. While the agent is absent, one daemon virtual thread
 * ("vtctx-agent-probe") probes again every {@code io.vtctx.reprobeMillis} (default 1000; 0 = never,
 * and no thread) and ends once the agent is found. Probing there, rather than on the publishing
 * threads, keeps the no-agent path free of clock reads (System.nanoTime costs 20-40 ns on some
 * virtual machines). Once active, the agent stays: it cannot be unloaded, and its records stay
 * mapped until the process exits.
 */
public final class AgentLink {
  private static final System.Logger LOG = System.getLogger("io.vtctx");
  private static final long REPROBE_MILLIS =
      Math.max(0, Long.getLong("io.vtctx.reprobeMillis", 1000));

  private static volatile boolean active;
  private static volatile boolean probed;

  private AgentLink() {}

  /** True if the agent is loaded and active. */
  public static boolean active() {
    return active || (!probed && firstProbe());
  }

  // Under a lock so that every thread's first use sees the decision (none publishes nothing while
  // another thread probes). The decision is recorded before logging: a logger that itself changes
  // the context re-enters here and must find it made.
  private static synchronized boolean firstProbe() {
    if (probed) return active;
    String absent = probe();
    active = absent == null;
    probed = true;
    if (absent == null) {
      LOG.log(Level.DEBUG, "vtctx: agent active, publishing thread context");
      return true;
    }
    LOG.log(
        Level.INFO,
        "vtctx: {0}; thread context is not published (load it with"
            + " -agentpath:/path/to/libvtctx.so{1})",
        absent,
        REPROBE_MILLIS == 0
            ? ""
            : ", or attach it: it is picked up within " + REPROBE_MILLIS + " ms");
    if (REPROBE_MILLIS > 0) {
      Thread.ofVirtual().name("vtctx-agent-probe").start(AgentLink::probeUntilActive);
    }
    return false;
  }

  private static void probeUntilActive() {
    try {
      while (probe() != null) Thread.sleep(REPROBE_MILLIS);
    } catch (InterruptedException e) {
      return; // asked to stop: publishing stays off
    }
    active = true;
    LOG.log(Level.INFO, "vtctx: agent attached, publishing thread context from now on");
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
