#!/usr/bin/env python3
"""vtctx-reader and the OTEP 4719 process context, against the ctxWriter fixture, whose process
context payloads are encoded here by a real protobuf runtime (python3-protobuf, from
tests/pctx/processContext.proto compiled by protoc at test time) and published by the fixture
with the agent's header protocol.

  pctxReaderTest.py --reader R --fixture ctxWriter_tlsdesc --protoc PROTOC --proto FILE

1. No process context: resolve and syscalls still read ids, label attributes #<index>, and say so
   once on stderr.
2. A context (service.name, a non-string resource attribute, key map ["method"]): resolve prints
   it exactly (JSON and text); index 0 is named, index 1 (beyond the map) stays #1.
3. syscalls started with that map; the key map grows to ["method","route"] while it runs: the next
   marker names both, after exactly one timestamp check and one re-read (lazy refresh); without a
   change, unnamed indexes cost checks but never a re-read.
4. Unsupported schema version, a malformed key map, a payload that does not decode: reported,
   attributes unnamed, ids still read.
5. profile: json samples carry named attributes; table --group-by method/route ranks the spinning
   threads' values; folded --folded-attrs method,route prefixes each ctxfix_spin stack with them.
"""
import argparse
import tempfile

from fixtureTest import Fixture
from vtctxtest import StreamingReader, check, json_lines, require_root, run_reader
from vtctxtest.processContextProto import SCHEMA_VERSION, compile_proto, encode

SCHEMA = SCHEMA_VERSION


class Payloads:
    def __init__(self, pb):
        self.pb = pb

    def make(self, resource, schema=SCHEMA, keys=None, bad_key_map=False):
        ctx = encode(self.pb, resource.items(), schema, keys)
        if bad_key_map:
            ctx.extra_attributes[-1].value.array_value.values.add(int_value=7)
        return ctx.SerializeToString()


def publish(fixture, payload):
    done = fixture.command("pctx " + payload.hex(), "pctx_done")
    return done["published_at_ns"]


def context_threads(fixture):
    return {tid: s for tid, s in fixture.states.items() if s["trace_id"]}


def expected_attributes(state, names):
    """What `attributes` must be for a fixture thread, given the key map `names` in force."""
    if not state.get("attrs"):
        return None
    return {(names[int(i)] if int(i) < len(names) else f"#{i}"): v
            for i, v in state["attrs"].items()}


def resolve(args, fixture, fmt="json"):
    code, out, err = run_reader(args.reader, ["resolve", "--pid", str(fixture.pid), "--format",
                                              fmt])
    check(code == 0, f"resolve exited {code}: {err.strip()}")
    return out, [l for l in err.splitlines() if l.strip()]


def check_resolve(args, fixture, names, want_context, note=None):
    out, err = resolve(args, fixture)
    objects = json_lines(out)
    check("library" in objects[0], "the module object must stay first")
    contexts = [o for o in objects if "process_context" in o]
    check(len(contexts) == 1, f"want one process_context object, got {len(contexts)}")
    got = contexts[0]["process_context"]
    for key, value in want_context.items():
        check(got.get(key) == value, f"process_context.{key} = {got.get(key)!r}, want {value!r}")
    threads = {o["tid"]: o for o in objects if "tid" in o}
    for tid, state in fixture.states.items():
        t = threads[tid]
        check(t["trace_id"] == state["trace_id"], f"thread {tid}: ids must be read regardless")
        check(t.get("attrs") == state["attrs"], f"thread {tid}: attrs {t.get('attrs')}")
        want = expected_attributes(state, names)
        check(t.get("attributes") == want,
              f"thread {tid} (k={state['k']}): attributes {t.get('attributes')!r}, want {want!r}")
    if note is None:
        check(err == [], f"resolve printed on stderr: {err}")
    else:
        check(len(err) == 1 and note in err[0], f"want one stderr line with {note!r}: {err}")
    return got


def check_resolve_text(args, fixture, needles):
    out, _ = resolve(args, fixture, "text")
    for needle in needles:
        check(needle in out, f"resolve text lacks {needle!r}:\n{out}")


def run_syscalls(args, fixture, rounds, between=None, extra=()):
    reader = StreamingReader(args.reader, ["syscalls", "--pid", str(fixture.pid), "--syscall",
                                           "write", "--format", "json", *extra])
    try:
        reader.wait_attached()
        if between:
            between()
        markers = {}
        for r in rounds:
            fixture.command(f"round {r}", "round_done")
            for tid, state in fixture.states.items():
                markers[(tid, state["marker"])] = dict(state)
        out = reader.stop()
    finally:
        reader.kill()
    seen = {}
    for e in json_lines(out):
        key = (e["tid"], e["count"])
        if key in markers:
            seen[key] = e
    check(len(seen) == len(markers), f"{len(markers) - len(seen)} marker writes missing")
    return seen, markers, reader


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--reader", required=True)
    parser.add_argument("--fixture", required=True)
    parser.add_argument("--protoc", required=True)
    parser.add_argument("--proto", required=True)
    args = parser.parse_args()
    require_root()
    with tempfile.TemporaryDirectory() as work:
        payloads = Payloads(compile_proto(args.protoc, args.proto, work))
    fixture = Fixture(args.fixture, None, {})
    try:
        run(args, fixture, payloads)
    finally:
        fixture.quit()
    print("PASS")


def run(args, fixture, payloads):
    pid = fixture.pid
    # 1. No process context.
    got = check_resolve(args, fixture, [], {"status": "absent", "reason": "no OTEL_CTX mapping"},
                        note="no OTEP 4719 process context")
    check_resolve_text(args, fixture, ["process context (OTEP 4719): none", '#0="foo" #1="bar"'])
    seen, markers, reader = run_syscalls(args, fixture, [1])
    for key, e in seen.items():
        want = expected_attributes(markers[key], [])
        check(e.get("attributes") == want, f"syscalls without context: {e}")
    notes = [l for l in reader.stderr.all if "process context" in l]
    check(len(notes) == 1 and "no OTEP 4719 process context" in notes[0],
          f"the missing context must be reported once: {notes}")
    print("ok: no process context: ids read, attributes by index, reported once")

    # 2. A context naming index 0 only.
    resource = {"service.name": "fixture-svc", "deployment.environment.name": "t\u00e9st",
                "x.count": 42, "x.flag": True}
    p1 = payloads.make(resource, keys=["method"])
    at = publish(fixture, p1)
    got = check_resolve(args, fixture, ["method"], {
        "status": "ok", "mapping": "/memfd:OTEL_CTX (deleted)", "published_at_ns": at,
        "payload_size": len(p1), "resource": resource, "schema_version": SCHEMA,
        "schema_supported": True, "attribute_key_map": ["method"]})
    check("extra_attributes" not in got, f"no other extra attributes were published: {got}")
    check_resolve_text(args, fixture, [
        'resource service.name="fixture-svc"', 'resource x.count=42', 'resource x.flag=true',
        'threadlocal.schema_version="tlsdesc_v1_dev"',
        'threadlocal.attribute_key_map: 0="method"', 'method="foo" #1="bar"'])
    print(f"ok: resolve decodes the context: {got}")

    # 3. Lazy refresh while syscalls runs: the key map grows before round 2.
    p2 = payloads.make(resource, keys=["method", "route"])
    seen, markers, reader = run_syscalls(args, fixture, [2],
                                         between=lambda: publish(fixture, p2))
    for key, e in seen.items():
        want = expected_attributes(markers[key], ["method", "route"])
        check(e.get("attributes") == want, f"after the key map grew: {e.get('attributes')}, "
                                           f"want {want}")
    summary = reader.summary()
    check(summary.get("pctx_checks") == "1" and summary.get("pctx_reads") == "2",
          f"want exactly one check and one re-read after the update: {summary}")
    print(f"ok: lazy refresh named the new key: {summary}")
    # Unnamed indexes that no update explains: checks only, never a re-read.
    p3 = payloads.make(resource, keys=["method"])
    publish(fixture, p3)  # an append-only writer never shrinks its map; this one tests the reader
    seen, markers, reader = run_syscalls(args, fixture, [3, 4])
    summary = reader.summary()
    check(summary.get("pctx_reads") == "1", f"re-read without a change: {summary}")
    unnamed = sum(1 for e in seen.values() if any(k.startswith("#") for k in e.get("attributes", {})))
    check(unnamed == 2, f"thread 1's two markers carry #1: {unnamed}")
    print(f"ok: unnamed indexes without an update: {summary}")

    # 4. Contexts that cannot name attributes.
    for what, payload, want, note in (
            ("unsupported schema", payloads.make(resource, schema="tls_v9", keys=["method"]),
             {"status": "ok", "schema_version": "tls_v9", "schema_supported": False},
             'threadlocal.schema_version is "tls_v9", not tlsdesc_v1_dev'),
            ("no schema", payloads.make(resource, schema=None, keys=["method"]),
             {"status": "ok", "schema_version": None, "schema_supported": False},
             "has no threadlocal.schema_version"),
            ("bad key map", payloads.make(resource, keys=["method"], bad_key_map=True),
             {"status": "ok", "attribute_key_map": None,
              "attribute_key_map_error": "element 1 is not a non-empty string"},
             "threadlocal.attribute_key_map unusable"),
            ("truncated payload", p2[:-3], {"status": "invalid"}, "process context unreadable")):
        publish(fixture, payload)
        got = check_resolve(args, fixture, [], want, note=note)
        print(f"ok: {what}: {got}")
    check_resolve_text(args, fixture, ["unreadable (payload does not decode"])

    # 5. profile with named attributes.
    publish(fixture, p2)
    names = ["method", "route"]
    states = context_threads(fixture)
    out = fixture.profile(args.reader, ["--format", "json"])
    samples = [s for s in json_lines(out) if s["tid"] in states]
    check(samples, "no profile sample of a thread with a context")
    for s in samples:
        want = expected_attributes(states[s["tid"]], names)
        check(s.get("attributes") == want, f"profile json sample {s}, want {want}")
    print(f"ok: profile json: {len(samples)} samples with named attributes")

    for group in ("method", "route", "method,route"):
        out = fixture.profile(args.reader, ["--group-by", group])
        lines = out.splitlines()
        check(lines[0].endswith(f"grouped by {group}") and lines[1].split()[-1] == "GROUP",
              f"table header:\n{out}")
        rows = {}
        for line in lines[2:]:
            cols = line.split(None, 5)
            rows[cols[5]] = (int(cols[1]), cols[4])
        for state in states.values():
            attrs = expected_attributes(state, names)
            cells = []
            for g in group.split(","):
                cells.append(f'{g}="{attrs[g]}"' if g in attrs else f"{g}=(unset)")
            label = " ".join(cells)
            check(label in rows and rows[label][0] > 0, f"--group-by {group}: no row {label!r}:\n{out}")
            if group != "route":  # route=(unset) is shared by every thread but thread 1
                check(rows[label][1] == "1", f"--group-by {group}: {label} spans one trace:\n{out}")
        print(f"ok: profile table --group-by {group}: {sorted(rows)}")

    out = fixture.profile(args.reader, ["--format", "folded", "--folded-attrs", "method,route"])
    by_trace = {s["trace_id"]: expected_attributes(s, names) for s in states.values()}
    spin = [l for l in out.splitlines() if "ctxfix_spin" in l]
    check(spin, f"no folded stack names ctxfix_spin:\n{out[:2000]}")
    for line in spin:
        frames = line.split(";")
        check(frames[2].startswith("trace_") and frames[2][6:] in by_trace,
              f"ctxfix_spin stack without a spinning thread's trace: {line}")
        attrs = by_trace[frames[2][6:]]
        want = [f"method={attrs['method']}", f"route={attrs.get('route', '(unset)')}"]
        check(frames[:2] == want, f"attribute frames {frames[:2]}, want {want}: {line}")
    print(f"ok: profile folded --folded-attrs: {len(spin)} ctxfix_spin stacks")


if __name__ == "__main__":
    main()
