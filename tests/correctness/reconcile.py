"""Grades every marker of a run on the two planes of C2 (paper, section 4.2).

For a marker written by sender S under context C (the manifest), with event E (the reader's
write(2) entry whose count names the marker):

  content plane (is the trace context right?)
    lost           no event for the marker
    unmapped       no record was read: the slot was NULL (`context: null`), the thread had no TLS
                   block for the variable (`no_slot`), or no thread pointer/slot could be read
    invalid        a record pointer was read but the record says valid != 1 (no context, or caught
                   mid-rewrite), or the record could not be read (`fault`)
    misattributed  valid == 1 and (trace_id, span_id, trace_flags) != C: a well-formed context that
                   is not the sender's current one. The silent failure C3 is about.
    correct        valid == 1 and exactly C

  identity plane (is the event attributed to the right thread?)
    lost / unmapped  as above
    correct        the record named is S's own (ThreadContext.recordAddress() in S), readable
                   or not (a record nobody wrote yet can sit on a page BPF cannot read: `fault`)
    invalid        the reader could not read the record (`fault`) and no sender of the run owns
                   that address: a pointer to something that is not known to be a record
    misattributed  any other record: another sender's, a carrier's own, a recycled one,
                   whatever its valid flag says

Both planes are graded independently: a record of the right thread can carry a wrong context,
and a right-looking context can come from the wrong thread's record.
"""
from collections import Counter

from events import MARKER

CLASSES = ("correct", "unmapped", "invalid", "misattributed", "lost")
PLANES = ("content", "identity")
NO_RECORD = ("null", "no_slot", "no_tp")


def describe(raw):
    """The reader's view of one event, short."""
    if raw is None:
        return "no event"
    if raw["context"] != "ok":
        return f"tid {raw['tid']} context={raw['context']} record={raw['record'] or '-'}"
    return (f"tid {raw['tid']} record={raw['record']} valid={raw['valid']} "
            f"trace={raw['trace_id'] or '-'} span={raw['span_id'] or '-'} "
            f"flags={raw['trace_flags'] or '-'}")


def grade_content(raw, expected):
    if raw is None:
        return "lost"
    if raw["context"] in NO_RECORD or (raw["context"] == "fault" and not raw["record"]):
        return "unmapped"
    if raw["context"] != "ok" or raw["valid"] != 1:
        return "invalid"
    seen = (raw["trace_id"], raw["span_id"], raw["trace_flags"])
    return "correct" if seen == expected else "misattributed"


def grade_identity(raw, own_record, sender_records):
    if raw is None:
        return "lost"
    if raw["context"] in NO_RECORD or not raw["record"]:
        return "unmapped"
    record = int(raw["record"], 16)
    if record == own_record:
        return "correct"
    if raw["context"] != "ok" and record not in sender_records:
        return "invalid"
    return "misattributed"


class Grades:
    """Counts per phase ("after", "before") and plane, plus examples of each failure."""

    def __init__(self):
        self.counts = {(phase, plane): Counter() for phase in ("after", "before")
                       for plane in PLANES}
        self.examples = []

    def add(self, phase, plane, klass, marker_id, detail):
        self.counts[(phase, plane)][klass] += 1
        if klass != "correct" and len(self.examples) < 4 and phase == "after":
            self.examples.append(f"marker {marker_id} {plane} {klass}: {detail}")


def grade_run(manifest, marker_events):
    """Returns (Grades, problems): problems are harness-level findings that fail the run
    (duplicate or stray marker writes, unstable record addresses)."""
    problems = []
    seen = {}
    for e in marker_events.events:
        key = (e.kind, e.marker)
        if key in seen:
            problems.append(f"write {key} reported twice (tids {seen[key].tid}, {e.tid}): one "
                            f"marker must be exactly one write(2)")
            continue
        seen[key] = e
    if marker_events.stray:
        problems.append(f"{len(marker_events.stray)} writes on the marker fd match no marker, "
                        f"e.g. {marker_events.stray[0]}")
    for s, sender in enumerate(manifest.senders):
        if sender.record == 0 or sender.record != sender.record_at_end:
            problems.append(f"sender {s}: record 0x{sender.record:x} at first publish, "
                            f"0x{sender.record_at_end:x} at end (must be stable and non-zero)")

    grades = Grades()
    sender_records = {sender.record for sender in manifest.senders}
    for m, marker in enumerate(manifest.markers):
        e = seen.get((MARKER, m))
        raw = e.raw if e is not None else None
        own = manifest.senders[marker.sender].record
        content = grade_content(raw, marker.context)
        identity = grade_identity(raw, own, sender_records)
        trace, span, flags = marker.context
        grades.add(marker.phase, "content", content, m,
                   f"sender {marker.sender} had trace={trace} span={span} flags={flags}; "
                   f"read {describe(raw)}")
        grades.add(marker.phase, "identity", identity, m,
                   f"sender {marker.sender} has record=0x{own:x}; read {describe(raw)}")
    return grades, problems, seen
