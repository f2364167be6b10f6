package io.vtctx.internal;

/**
 * The one native the vtctx agent exports by name: asking it for the natives of {@link
 * AgentNatives}. The agent binds them itself (RegisterNatives, every name and signature checked) to
 * the {@code AgentNatives} class this class's loader finds, if it serves that copy (agent option
 * {@code shim_loaders}: by default the class path's, the module path's and the OpenTelemetry Java
 * agent extension's); with no JVMTI needed, so the same way whether the agent runs with JVMTI or
 * without ({@code channel=identity}). Without the agent the call throws {@link
 * UnsatisfiedLinkError}; for a loader the agent does not serve it returns and {@code AgentNatives}
 * stays unbound.
 */
final class AgentBootstrap {
  private AgentBootstrap() {}

  /** Binds {@link AgentNatives}' natives if the agent serves this class loader. Idempotent. */
  static native void bindAgentNatives();
}
