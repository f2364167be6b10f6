package io.vtctx.demo;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The notes "database": in memory, but every lookup blocks like a real query (a few ms), so the
 * request's virtual thread unmounts and usually resumes on another carrier. One note, {@link
 * #BIG_ID}, has a body of a few MB of multilingual text: every request for it is slow.
 */
final class NoteStore {
  static final long BIG_ID = 42;
  static final int NOTES = 200;

  private static final String[] WORDS = {
    "the", "request", "carrier", "thread", "virtual", "profile", "sample", "span", "trace", "café",
    "naïve", "Grüße", "déjà", "vu", "señor", "über", "straße", "résumé", "→", "—", "…"
  };

  private final Map<Long, Note> notes;
  private final Tracer tracer;

  NoteStore(Tracer tracer, int bigNoteChars) {
    this.tracer = tracer;
    Random random = new Random(4947);
    Map<Long, Note> byId = new HashMap<>();
    for (long id = 1; id <= NOTES; id++) {
      int chars = id == BIG_ID ? bigNoteChars : 600 + random.nextInt(800);
      byId.put(id, new Note(id, "note " + id, text(random, chars)));
    }
    this.notes = Map.copyOf(byId);
  }

  /** Looks a note up; blocks 1-4 ms like a database round trip (a child span, as JDBC has). */
  Note find(long id) throws InterruptedException {
    Span span =
        tracer
            .spanBuilder("SELECT notes")
            .setSpanKind(SpanKind.CLIENT)
            .setAttribute("db.system", "demo")
            .startSpan();
    try (Scope ignored = span.makeCurrent()) {
      Thread.sleep(1 + ThreadLocalRandom.current().nextInt(4));
      return notes.get(id);
    } finally {
      span.end();
    }
  }

  private static String text(Random random, int chars) {
    StringBuilder sb = new StringBuilder(chars + 16);
    while (sb.length() < chars) {
      sb.append(WORDS[random.nextInt(WORDS.length)]).append(random.nextInt(12) == 0 ? ".\n" : " ");
    }
    sb.setLength(chars);
    return sb.toString();
  }
}
