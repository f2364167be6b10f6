package io.vtctx.internal;

import java.lang.System.Logger.Level;

/**
 * Whether the vtctx agent is there to publish through. Decided at first use; after that, asking
 * costs two volatile reads (plain loads on x86-64), with or without the agent.
 *
 * <p>The agent can also be attached to a running JVM (jcmd JVMTI.agent_load, the Attach API) after
 * this class found it missing. The agent then sets {@link #active} itself, from its
 * Agent_OnAttach, in every initialized copy of this class (agent/shimLink.cpp): publishing starts
 * at each thread's next publish, however busy or pinned the carriers are, and no thread of the
 * shim's waits or polls for it. Once active, the agent stays: it cannot be unloaded, and its
 * records stay mapped until the process exits.
 */
public final class AgentLink {

  // Written true by the first probe or by the agent at attach (agent/shimLink.cpp: the field's
  // name and type are that file's contract), never back to false.
  private static volatile boolean active;
  private static volatile boolean probed;
  // Written true by the agent when another thread-context writer or process context appears in
  // the process (agent/writerWatch.h): readers could then name this record's attributes by the
  // other writer's keys, so none is written any more. Never back to false.
  private static volatile boolean attributesOff;

  private AgentLink() {}

  // The logger only when there is something to log: initialising this class runs no code (the
  // agent may initialise it from its attach thread to set `active`).
  private static final class Log {
    static final System.Logger LOG = System.getLogger("io.vtctx");
  }

  /** True if record attributes must not be written (another writer shares the process). */
  public static boolean attributesOff() {
    return attributesOff;
  }

  /** True if the agent is loaded and active. */
  public static boolean active() {
    return active || (!probed && firstProbe());
  }

  // Under a lock so that every thread's first use sees the decision (none publishes nothing while
  // another thread probes). The decision is recorded before logging: a logger that itself changes
  // the context re-enters here and must find it made. Only ever sets active to true, so an attach
  // that tells this class while it probes is never undone.
  private static synchronized boolean firstProbe() {
    if (probed) return active;
    String absent = probe();
    if (absent == null) active = true;
    probed = true;
    if (active) {
      Log.LOG.log(Level.DEBUG, "vtctx: agent active, publishing thread context");
      return true;
    }
    Log.LOG.log(Level.INFO, "vtctx: thread context is not published: {0}", absent);
    return false;
  }

  /** Null if the agent is active, else why not. */
  private static String probe() {
    try {
      AgentBootstrap.bindAgentNatives();
    } catch (LinkageError e) {
      // UnsatisfiedLinkError: no agent exports it.
      return "agent libvtctx.so is not loaded (load it with -agentpath:/path/to/libvtctx.so, or"
          + " attach it to this JVM: publishing then starts at once)";
    }
    try {
      return AgentNatives.isActive()
          ? null
          : "agent libvtctx.so is loaded but not active (its 'vtctx:' line says why)";
    } catch (LinkageError e) {
      // UnsatisfiedLinkError: the agent does not serve this class loader's copy of the shim.
      return "agent libvtctx.so does not serve this class loader's copy of the shim (it serves"
          + " the class path's, the module path's and the OpenTelemetry Java agent extension's;"
          + " agent option shim_loaders=any serves every class loader's)";
    }
  }
}
