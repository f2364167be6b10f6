package io.vtctx.correctness;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** {@code key=value} command-line arguments; every key must be used, or it is a typo. */
final class Args {
  private final Map<String, String> values = new HashMap<>();
  private final Set<String> used = new HashSet<>();

  Args(String[] args) {
    for (String a : args) {
      int eq = a.indexOf('=');
      if (eq <= 0) throw new IllegalArgumentException("expected key=value, got " + a);
      values.put(a.substring(0, eq), a.substring(eq + 1));
    }
  }

  String string(String key, String fallback) {
    used.add(key);
    return values.getOrDefault(key, fallback);
  }

  String required(String key) {
    String v = string(key, null);
    if (v == null) throw new IllegalArgumentException("missing " + key + "=");
    return v;
  }

  int integer(String key, int fallback) {
    String v = string(key, null);
    return v == null ? fallback : Integer.parseInt(v);
  }

  String choice(String key, String fallback, List<String> allowed) {
    String v = string(key, fallback);
    if (!allowed.contains(v)) {
      throw new IllegalArgumentException(key + " must be one of " + allowed);
    }
    return v;
  }

  /** Fails on keys nobody asked for. */
  void checkAllUsed() {
    Set<String> unknown = new HashSet<>(values.keySet());
    unknown.removeAll(used);
    if (!unknown.isEmpty()) throw new IllegalArgumentException("unknown arguments " + unknown);
  }
}
