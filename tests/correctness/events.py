"""Reads vtctx-reader's JSON lines and keeps the write(2)s on the marker fd, decoded:
count = base + stride * marker_id + kind (MarkerSink.java)."""
import json
from dataclasses import dataclass

MARKER, SET, CLEAR = 0, 1, 2


@dataclass
class Event:
    ts_ns: int
    tid: int
    kind: int
    marker: int
    raw: dict


@dataclass
class MarkerEvents:
    events: list  # decoded events on the marker fd, in the reader's order
    stray: list  # writes on the marker fd whose count is no marker of this run
    other_writes: int  # writes on other fds (stdout, logs): ignored


def load(path, header):
    pid, fd = header["pid"], header["fd"]
    base, stride, markers = header["base"], header["stride"], header["markers"]
    decoded, stray, other = [], [], 0
    with open(path) as f:
        for line in f:
            e = json.loads(line)
            if e["pid"] != pid or e["syscall"] != "write":
                raise ValueError(f"reader reported an event of another process/syscall: {e}")
            if e["fd"] != fd:
                other += 1
                continue
            offset = e["count"] - base
            marker, kind = divmod(offset, stride)
            if offset < 0 or marker >= markers or kind not in (MARKER, SET, CLEAR):
                stray.append(e)
                continue
            decoded.append(Event(e["ts_ns"], e["tid"], kind, marker, e))
    return MarkerEvents(decoded, stray, other)
