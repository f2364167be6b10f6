package io.vtctx.correctness;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * The ground truth, kept apart from the record: for every marker its sender, sequence number and
 * the context the sender had made current when it wrote it; for every sender its thread kind and
 * the record address the agent bound to it (from {@code ThreadContext.recordAddress()}).
 *
 * <p>Each slot is written by exactly one thread before that thread is joined, and read by the main
 * thread after the join, so plain arrays are enough (join gives the happens-before edge).
 */
final class Manifest {
  /** Markers whose context was made current before a late attach and never since. */
  static final byte PHASE_BEFORE = 1;

  static final byte PHASE_AFTER = 0;

  private final int[] sender;
  private final int[] seq;
  private final long[] traceHigh;
  private final long[] traceLow;
  private final long[] span;
  private final byte[] flags;
  private final byte[] phase;
  private final boolean[] written;

  private final String[] senderKind;
  private final String[] senderPublisher;
  private final long[] record;
  private final long[] recordAtEnd;

  Manifest(int senders, int markers) {
    sender = new int[markers];
    seq = new int[markers];
    traceHigh = new long[markers];
    traceLow = new long[markers];
    span = new long[markers];
    flags = new byte[markers];
    phase = new byte[markers];
    written = new boolean[markers];
    senderKind = new String[senders];
    senderPublisher = new String[senders];
    record = new long[senders];
    recordAtEnd = new long[senders];
  }

  int markers() {
    return sender.length;
  }

  int senders() {
    return senderKind.length;
  }

  void sender(int s, String kind, String publisher) {
    senderKind[s] = kind;
    senderPublisher[s] = publisher;
  }

  void record(int s, long address) {
    record[s] = address;
  }

  void recordAtEnd(int s, long address) {
    recordAtEnd[s] = address;
  }

  /** What marker {@code id} must be attributed to: its sender's context at the write. */
  void marker(int id, int s, int q, Context expected, byte markerPhase) {
    if (written[id]) throw new IllegalStateException("marker " + id + " written twice");
    sender[id] = s;
    seq[id] = q;
    traceHigh[id] = expected.traceHigh();
    traceLow[id] = expected.traceLow();
    span[id] = expected.span();
    flags[id] = (byte) expected.flags();
    phase[id] = markerPhase;
    written[id] = true;
  }

  /** Writes the manifest as JSON lines: a header, one line per sender, one per marker. */
  void write(Path path, Map<String, Object> header) throws IOException {
    for (int m = 0; m < markers(); m++) {
      if (!written[m]) throw new IllegalStateException("marker " + m + " was never written");
    }
    try (BufferedWriter w = Files.newBufferedWriter(path)) {
      StringBuilder h = new StringBuilder("{\"type\":\"header\"");
      for (Map.Entry<String, Object> e : header.entrySet()) {
        h.append(",\"").append(e.getKey()).append("\":");
        Object v = e.getValue();
        h.append(v instanceof String ? "\"" + v + "\"" : String.valueOf(v));
      }
      w.write(h.append("}\n").toString());
      for (int s = 0; s < senders(); s++) {
        w.write(
            String.format(
                "{\"type\":\"sender\",\"sender\":%d,\"kind\":\"%s\",\"publisher\":\"%s\","
                    + "\"record\":\"0x%x\",\"record_at_end\":\"0x%x\"}%n",
                s, senderKind[s], senderPublisher[s], record[s], recordAtEnd[s]));
      }
      for (int m = 0; m < markers(); m++) {
        w.write(
            String.format(
                "{\"type\":\"marker\",\"id\":%d,\"sender\":%d,\"seq\":%d,"
                    + "\"trace_id\":\"%016x%016x\",\"span_id\":\"%016x\","
                    + "\"trace_flags\":\"%02x\",\"phase\":\"%s\"}%n",
                m,
                sender[m],
                seq[m],
                traceHigh[m],
                traceLow[m],
                span[m],
                flags[m],
                phase[m] == PHASE_BEFORE ? "before" : "after"));
      }
    }
  }
}
