package io.vtctx.otel;

import io.opentelemetry.api.common.AttributeKey;
import io.vtctx.internal.AttributeKeys;
import java.util.List;

/**
 * One configuration of the span attributes copied into records: names, their OpenTelemetry keys,
 * and their record key indexes, registered with the agent at first use (the agent may come later
 * than the configuration). Immutable but for that lazily filled index cache. A new configuration is
 * a new object, so a thread can tell that its record holds another configuration's keys.
 */
final class CopiedKeys {
  static final CopiedKeys NONE = new CopiedKeys(List.of());

  private static final int UNRESOLVED = -2;

  private final String[] names;
  private final AttributeKey<String>[] keys;
  // Racy but benign: every thread that resolves a name gets the same index from the agent.
  private final int[] indexes;

  @SuppressWarnings("unchecked")
  CopiedKeys(List<String> names) {
    this.names = names.toArray(new String[0]);
    this.keys = new AttributeKey[this.names.length];
    this.indexes = new int[this.names.length];
    for (int k = 0; k < this.names.length; k++) {
      keys[k] = AttributeKey.stringKey(this.names[k]);
      indexes[k] = UNRESOLVED;
    }
  }

  int size() {
    return names.length;
  }

  String name(int k) {
    return names[k];
  }

  AttributeKey<String> key(int k) {
    return keys[k];
  }

  /** The record key index of key {@code k}, or -1 if the agent refused it. Agent must be active. */
  int index(int k) {
    int index = indexes[k];
    if (index == UNRESOLVED) indexes[k] = index = AttributeKeys.register(names[k]);
    return index;
  }

  List<String> names() {
    return List.of(names);
  }
}
