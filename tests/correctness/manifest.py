"""Loads what the marker program wrote (Manifest.java): a header, one line per sender, one per
marker. This is the ground truth; none of it was read back from a record."""
import json
from dataclasses import dataclass


@dataclass
class Sender:
    kind: str  # "virtual" | "platform"
    publisher: str  # "api" | "otel"
    record: int  # the record the agent bound to it (ThreadContext.recordAddress())
    record_at_end: int


@dataclass
class Marker:
    sender: int
    seq: int
    context: tuple  # (trace_id, span_id, trace_flags), lowercase hex as the reader prints them
    phase: str  # "after" (must be correct) | "before" (late attach, see LateAttach.java)


@dataclass
class Manifest:
    header: dict
    senders: list
    markers: list


def load(path):
    header, senders, markers = None, [], []
    with open(path) as f:
        for line in f:
            o = json.loads(line)
            kind = o["type"]
            if kind == "header":
                header = o
            elif kind == "sender":
                if o["sender"] != len(senders):
                    raise ValueError(f"{path}: sender lines out of order at {o}")
                senders.append(Sender(o["kind"], o["publisher"], int(o["record"], 16),
                                      int(o["record_at_end"], 16)))
            elif kind == "marker":
                if o["id"] != len(markers):
                    raise ValueError(f"{path}: marker lines out of order at {o}")
                markers.append(Marker(o["sender"], o["seq"],
                                      (o["trace_id"], o["span_id"], o["trace_flags"]),
                                      o["phase"]))
    if header is None or len(markers) != header["markers"] or len(senders) != header["senders"]:
        raise ValueError(f"{path}: incomplete manifest")
    return Manifest(header, senders, markers)
