#!/usr/bin/env python3
"""The grading on synthetic inputs: each class on each plane, duplicate and stray writes, an
unstable record, and the naive baseline. Proves the grader can say every verdict, and says the
right one (the real harness runs only produce 'correct' when vtctx works)."""
import unittest

from events import CLEAR, MARKER, SET, Event, MarkerEvents  # noqa: E402
from manifest import Manifest, Marker, Sender  # noqa: E402
from naive import movement, naive_grades  # noqa: E402
from reconcile import grade_run  # noqa: E402

REC_A, REC_B, CARRIER = 0x7F0000000040, 0x7F0000000080, 0x7F00000000C0
CTX = {m: (f"{m:032x}", f"{m + 0x100:016x}", "01") for m in range(8)}


def manifest(markers=8, rec_b_end=REC_B):
    senders = [Sender("virtual", "api", REC_A, REC_A), Sender("virtual", "otel", REC_B, rec_b_end)]
    return Manifest({"markers": markers, "senders": 2},
                    senders, [Marker(m % 2, m // 2, CTX[m], "after") for m in range(markers)])


def raw(tid, record, valid=1, ctx=None, context="ok"):
    trace, span, flags = ctx if ctx and valid == 1 else ("", "", "")
    return {"tid": tid, "record": f"0x{record:x}" if record else "", "valid": valid,
            "trace_id": trace, "span_id": span, "trace_flags": flags, "context": context}


def ev(ts, tid, kind, marker, r=None):
    return Event(ts, tid, kind, marker, r or raw(tid, 0, 0, None, "null"))


class GradeTest(unittest.TestCase):
    def grade(self, events, m=None):
        grades, problems, seen = grade_run(m or manifest(), MarkerEvents(events, [], 0))
        return grades.counts[("after", "content")], grades.counts[("after", "identity")], problems

    def test_every_class(self):
        events = [
            ev(1, 10, MARKER, 0, raw(10, REC_A, 1, CTX[0])),  # correct / correct
            ev(2, 10, MARKER, 1, raw(10, 0, 0, None, "null")),  # unmapped / unmapped
            ev(3, 10, MARKER, 2, raw(10, 0, 0, None, "no_slot")),  # unmapped / unmapped
            ev(4, 11, MARKER, 3, raw(11, REC_B, 0)),  # invalid (valid=0) / correct
            ev(5, 11, MARKER, 4, raw(11, REC_B, 1, CTX[5])),  # B's context: misattr / misattr
            ev(6, 11, MARKER, 5, raw(11, CARRIER, 0)),  # carrier's record: invalid / misattr
            ev(7, 11, MARKER, 6, raw(11, 0x1234, 0, None, "fault")),  # invalid / invalid
            # marker 7: no event -> lost / lost
        ]
        content, identity, problems = self.grade(events)
        self.assertEqual(problems, [])
        self.assertEqual(dict(content), {"correct": 1, "unmapped": 2, "invalid": 3,
                                         "misattributed": 1, "lost": 1})
        self.assertEqual(dict(identity), {"correct": 2, "unmapped": 2, "invalid": 1,
                                          "misattributed": 2, "lost": 1})

    def test_unreadable_record_is_still_named(self):
        # BPF cannot read a record on a page nobody touched yet (`fault`): the content is
        # invalid, but the address still says whose record the reader attributes the event to.
        unreadable = [
            ev(1, 10, MARKER, 0, raw(10, REC_A, 0, None, "fault")),  # own record
            ev(2, 10, MARKER, 2, raw(10, REC_B, 0, None, "fault")),  # sender B's record
        ]
        content, identity, _ = self.grade(unreadable, manifest(markers=3))
        self.assertEqual(dict(content), {"invalid": 2, "lost": 1})
        self.assertEqual(dict(identity), {"correct": 1, "misattributed": 1, "lost": 1})

    def test_right_context_in_wrong_record_is_an_identity_failure(self):
        # Content alone would accept this (C2): the sender's ids, read from another record.
        content, identity, _ = self.grade([ev(1, 10, MARKER, 0, raw(10, REC_B, 1, CTX[0]))],
                                          manifest(markers=1))
        self.assertEqual(dict(content), {"correct": 1})
        self.assertEqual(dict(identity), {"misattributed": 1})

    def test_flags_are_part_of_the_context(self):
        wrong_flags = (CTX[0][0], CTX[0][1], "00")
        content, _, _ = self.grade([ev(1, 10, MARKER, 0, raw(10, REC_A, 1, wrong_flags))],
                                   manifest(markers=1))
        self.assertEqual(dict(content), {"misattributed": 1})

    def test_duplicate_stray_and_unstable_record_are_problems(self):
        dup = [ev(1, 10, MARKER, 0, raw(10, REC_A, 1, CTX[0])),
               ev(2, 10, MARKER, 0, raw(10, REC_A, 1, CTX[0]))]
        _, _, problems = self.grade(dup, manifest(markers=1, rec_b_end=REC_A))
        self.assertEqual(len(problems), 2, problems)  # twice reported; B's record changed
        grades, problems, _ = grade_run(manifest(markers=1),
                                        MarkerEvents([], [{"count": 5}], 0))
        self.assertEqual(len(problems), 1, problems)


class NaiveTest(unittest.TestCase):
    def test_tid_keyed_attribution(self):
        m = manifest(markers=4)
        events = [
            ev(1, 10, SET, 0), ev(2, 10, MARKER, 0),  # same OS thread: naive right
            ev(3, 10, SET, 1), ev(4, 11, MARKER, 1),  # moved, nothing on 11: unmapped
            ev(5, 11, SET, 2), ev(6, 10, MARKER, 2),  # moved, 10 still has marker 1's context
            ev(7, 10, CLEAR, 1), ev(8, 10, SET, 3), ev(9, 10, CLEAR, 3), ev(10, 10, MARKER, 3),
        ]
        counts = naive_grades(m, MarkerEvents(events, [], 0))
        self.assertEqual(dict(counts), {"correct": 1, "unmapped": 2, "misattributed": 1})
        seen = {(e.kind, e.marker): e for e in events}
        self.assertEqual(movement(m, seen), (2, 2))


if __name__ == "__main__":
    unittest.main()
