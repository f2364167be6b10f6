"""The naive baseline: what an OS-level tracer gets WITHOUT vtctx, keyed by OS thread id only.

Model: a tid-keyed tracer learns contexts where the application publishes them (a hook at span
activation that records "OS thread T now has context C", as tracers keyed on the kernel thread
id do) and attributes each later event on T to the context most recently published on T; an
end of scope on T forgets it. It is computed from the same event stream, in ts_ns order:

  SET announcement of marker m on tid T   ->  naive[T] = context of m
  CLEAR announcement on tid T             ->  naive[T] = nothing
  marker m on tid T                       ->  attributed to naive[T]

Every announcement is written right after the publish (or scope end) it announces, on the same
mount (nothing between them can unmount the thread), so its tid is the OS thread the publish ran
on. For platform threads the model is exact; for virtual threads it attributes a marker to
whatever was last published on the carrier the marker happens to run on.

Only "after" markers are counted (late attach's "before" scopes were opened before any reader).
"""
from collections import Counter

from events import CLEAR, MARKER, SET


def naive_grades(manifest, marker_events):
    counts = Counter()
    current = {}  # tid -> marker id whose context was last published there, or None
    for e in sorted(marker_events.events, key=lambda e: e.ts_ns):
        if e.kind == SET:
            current[e.tid] = e.marker
        elif e.kind == CLEAR:
            current[e.tid] = None
        elif e.kind == MARKER and manifest.markers[e.marker].phase == "after":
            published = current.get(e.tid)
            if published is None:
                counts["unmapped"] += 1
            elif manifest.markers[published].context == manifest.markers[e.marker].context:
                counts["correct"] += 1
            else:
                counts["misattributed"] += 1
    return counts


def movement(manifest, seen):
    """How much the workload moved threads between OS threads: markers written on another OS
    thread than their context's publish (SET), and the OS threads that wrote markers."""
    moved, tids = 0, set()
    for m, marker in enumerate(manifest.markers):
        write, publish = seen.get((MARKER, m)), seen.get((SET, m))
        if write is None:
            continue
        tids.add(write.tid)
        if publish is not None and publish.tid != write.tid:
            moved += 1
    return moved, len(tids)
