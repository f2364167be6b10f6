package io.vtctx.correctness;

/**
 * A workload of senders. {@link #prepare} runs before READY (the reader is not attached yet, so it
 * writes no markers); {@link #run} runs after GO and writes every marker of the manifest.
 */
interface Scenario {
  int senders();

  int markers();

  /** True if the agent must already be active at READY (false only for late attach). */
  default boolean agentAtStart() {
    return true;
  }

  default void prepare(RunContext run, Deadline deadline) throws Exception {}

  void run(RunContext run, Deadline deadline) throws Exception;

  /** Adds what the scenario measured to the manifest's header. */
  default void describe(java.util.Map<String, Object> header) {}
}
