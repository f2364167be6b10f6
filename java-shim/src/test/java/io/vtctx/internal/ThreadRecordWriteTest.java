package io.vtctx.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The rules of {@link ThreadRecord}'s one write path, against plain off-heap memory laid out like a
 * record (no agent needed). A byte changed behind the writer's back shows whether a publish stored
 * anything: the writer stores only what differs from what it last wrote.
 */
class ThreadRecordWriteTest {
  private static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
  private static final long HIGH = 0x4bf92f3577b34da6L;
  private static final long LOW = 0xa3ce929d0e0e4736L;
  private static final byte POKED = 0x55;

  private final ByteBuffer view = record();
  private final ThreadRecord record = ThreadRecord.over(view);

  private static ByteBuffer record() {
    ByteBuffer b = ByteBuffer.allocateDirect(64 + 64).alignedSlice(64);
    return b.limit(64).slice();
  }

  /** Records the valid byte it sees and applies one store inside the rewrite. */
  private static final class RecordingEdit implements ThreadRecord.AttributeEdit {
    final List<Byte> validSeen = new ArrayList<>();

    @Override
    public void apply(ByteBuffer r) {
      validSeen.add(r.get(RecordWriter.VALID));
      r.put(40, (byte) (r.get(40) + 1)); // stands for an attribute store
    }
  }

  @Test
  void anUnchangedPublishStoresNothing() {
    record.publish(HIGH, LOW, 0x1111L, 1);
    assertTrue(RecordWriter.holds(view, HIGH, LOW, 0x1111L, 1));
    view.put(RecordWriter.SPAN_ID, POKED);
    record.publish(HIGH, LOW, 0x1111L, 1);
    assertEquals(POKED, view.get(RecordWriter.SPAN_ID), "an unchanged publish wrote");
    record.publish(HIGH, LOW, 0x1111L, 0); // the flags changed: rewritten
    assertTrue(RecordWriter.holds(view, HIGH, LOW, 0x1111L, 0));
  }

  @Test
  void aSpanChangeInsideATraceStoresOnlyTheSpan() {
    record.publish(HIGH, LOW, 0x1111L, 1);
    view.put(RecordWriter.TRACE_ID, POKED);
    record.publish(HIGH, LOW, 0x2222L, 1);
    assertEquals(POKED, view.get(RecordWriter.TRACE_ID), "the unchanged trace-id was stored");
    assertEquals(0x2222L, view.getLong(RecordWriter.SPAN_ID));
    assertEquals(1, view.get(RecordWriter.VALID));
    record.publish(HIGH + 1, LOW, 0x2222L, 1); // a new trace: the trace-id is stored
    assertTrue(RecordWriter.holds(view, HIGH + 1, LOW, 0x2222L, 1));
  }

  @Test
  void allZeroIdsClearOnce() {
    record.publish(HIGH, LOW, 0x1111L, 1);
    record.publish(HIGH, LOW, 0L, 1); // a zero span-id is invalid
    assertTrue(RecordWriter.isClear(view));
    record.publish(HIGH, LOW, 0x1111L, 1);
    record.publish(0L, 0L, 0x1111L, 1); // so is a zero trace-id
    assertTrue(RecordWriter.isClear(view));
    view.put(RecordWriter.SPAN_ID, POKED);
    record.publish(0L, 0L, 0L, 0);
    assertEquals(POKED, view.get(RecordWriter.SPAN_ID), "a second clear wrote");
  }

  @Test
  void aSourceIsHeldUntilAnotherPublish() {
    Object a = new Object();
    IdCache.Ids ids = record.loadIds(a, TRACE, "0000000000001111", 1, false, null);
    assertFalse(record.holds(a), "held before its publish");
    record.publish(a, ids, null);
    assertTrue(record.holds(a));
    assertTrue(RecordWriter.holds(view, HIGH, LOW, 0x1111L, 1));
    view.put(RecordWriter.SPAN_ID, POKED);
    record.publish(a, ids, null);
    assertEquals(POKED, view.get(RecordWriter.SPAN_ID), "republishing the held entry wrote");

    Object none = new Object();
    record.publish(none, null, null); // a source without ids: no context
    assertTrue(RecordWriter.isClear(view));
    assertTrue(record.holds(none));
    assertFalse(record.holds(a));
    record.publish(HIGH, LOW, 0x1111L, 1); // by value: no source
    assertFalse(record.holds(none));
    assertFalse(record.holds(null));
  }

  @Test
  void aLoadThatReplacesTheHeldEntryLetsGoOfItsSource() {
    Object a = new Object();
    Object b = new Object();
    Object c = new Object();
    record.publish(a, record.loadIds(a, TRACE, "0000000000001111", 1, false, null), null);
    IdCache.Ids idsB = record.loadIds(b, TRACE, "0000000000002222", 1, false, null);
    assertTrue(record.holds(a), "a load into the other entry changed what is held");
    // The next load replaces the older entry, a's: its key becomes c while the record still holds
    // a's ids, so neither a nor c may count as held.
    IdCache.Ids idsC = record.loadIds(c, TRACE, "0000000000003333", 1, false, null);
    assertNotNull(idsB);
    assertSame(c, idsC.key());
    assertFalse(record.holds(a));
    assertFalse(record.holds(c), "c counted as held before its publish");
    record.publish(c, idsC, null);
    assertTrue(RecordWriter.holds(view, HIGH, LOW, 0x3333L, 1));
  }

  @Test
  void anEditIsAppliedInsideTheRewriteEveryTime() {
    Object a = new Object();
    IdCache.Ids ids = record.loadIds(a, TRACE, "0000000000001111", 1, false, null);
    RecordingEdit edit = new RecordingEdit();
    record.publish(a, ids, edit);
    record.publish(a, ids, edit); // held, but an edit always writes
    assertEquals(List.of((byte) 0, (byte) 0), edit.validSeen, "edit applied outside valid=0");
    assertEquals(2, view.get(40));
    assertTrue(RecordWriter.holds(view, HIGH, LOW, 0x1111L, 1));
    assertTrue(record.holds(a));
  }

  @Test
  void anEditWithoutIdsLeavesTheRecordWithoutContext() {
    record.publish(HIGH, LOW, 0x1111L, 1);
    Object none = new Object();
    RecordingEdit edit = new RecordingEdit();
    record.publish(none, null, edit);
    assertTrue(RecordWriter.isClear(view));
    assertEquals(List.of((byte) 0), edit.validSeen);
    assertEquals(1, view.get(40));
    record.publish(none, null, edit); // already clear, but an edit always writes
    assertEquals(2, view.get(40));
    assertTrue(RecordWriter.isClear(view));
  }

  @Test
  void anotherAttributeWriteDropsTheOwner() {
    RecordingEdit edit = new RecordingEdit();
    record.attributeOwner(edit);
    assertSame(edit, record.attributeOwner());
    assertEquals(-1, record.setAttribute(-1, "x")); // refused, but an attribute write all the same
    assertNull(record.attributeOwner());
  }
}
