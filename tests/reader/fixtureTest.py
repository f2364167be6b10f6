#!/usr/bin/env python3
"""End-to-end test of vtctx-reader against one ctxWriter fixture (one TLS access model).

  fixtureTest.py --reader R --fixture F [--dlopen LIB] [--env K=V] --model M --tls static|dynamic
                 [--profile]

1. resolve --format json: the access model and static/dynamic placement are the expected ones, and
   for every thread the slot address equals &otel_thread_ctx_v1 as the thread itself computed it
   (this checks the glibc TLS layout facts on this machine), and record/valid/trace/span/flags/
   attrs equal what the thread published.
2. syscalls --syscall write --format json while the fixture runs 3 rounds of context changes and
   marker writes: every marker write appears exactly once, from the right tid, with the context
   of that round; nothing dropped.
3. resolve again (text and json) after the changes.
4. --profile: profile while the threads burn CPU: json: every sample of a thread carries that
   thread's context; table: ranks exactly the spinning threads' traces; folded: stacks naming
   ctxfix_spin sit under the right trace_/span_ frames.
5. --raw-tp: step 2 again on the raw tracepoint (the fallback for kernels without tp_btf).
"""
import argparse
import os

from vtctxtest import (JvmTarget, StreamingReader, attached_reader, check, json_lines,
                       require_root, run_reader)
import json

ROUNDS = 3


class Fixture:
    def __init__(self, path, dlopen, env):
        cmd = [path] + (["--dlopen", dlopen] if dlopen else [])
        full_env = dict(os.environ)
        full_env.update(env)
        self.target = JvmTarget(cmd, env=full_env, echo=None)
        self.out = self.target.out
        self.states = {}  # tid -> latest thread state
        ready = self.collect_until(lambda e: e["event"] == "ready", "fixture ready")
        self.pid = ready["pid"]

    def collect_until(self, done, what, timeout=60):
        while True:
            line = self.out.wait_for(lambda l: True, timeout, what)
            event = json.loads(line)
            if event["event"] == "thread":
                self.states[event["tid"]] = event
            if done(event):
                return event

    def command(self, text, done_event, timeout=60):
        self.target.send(text)
        return self.collect_until(lambda e: e["event"] == done_event, done_event, timeout)

    def profile(self, reader_path, extra, spin_ms=200):
        """The stdout of `profile --pid P --hz 499 EXTRA` attached while the fixture's threads
        spin for spin_ms."""
        with attached_reader(reader_path, ["profile", "--pid", str(self.pid), "--hz", "499"] +
                             extra) as run:
            self.command(f"spin {spin_ms}", "spin_done")
        return run.output

    def quit(self):
        self.target.stop()


CONTEXT_FIELDS = ("record", "valid", "trace_id", "span_id", "trace_flags")


def check_context(actual, expected, where):
    for field in CONTEXT_FIELDS:
        check(actual.get(field) == expected[field],
              f"{where}: {field} is {actual.get(field)!r}, expected {expected[field]!r}")
    want_attrs = expected.get("attrs")
    check(actual.get("attrs") == want_attrs,
          f"{where}: attrs {actual.get('attrs')!r}, expected {want_attrs!r}")


def check_resolve(args, fixture):
    code, out, err = run_reader(args.reader, ["resolve", "--pid", str(fixture.pid), "--format",
                                              "json"])
    check(code == 0, f"resolve exited {code}: {err.strip()}")
    objects = json_lines(out)
    modules = [o for o in objects if "library" in o]
    threads = {o["tid"]: o for o in objects if "tid" in o}
    check(modules, "resolve printed no module object")
    first = modules[0]
    check(first["access_model"] == args.model,
          f"access_model {first['access_model']}, expected {args.model}")
    check(first["tls"] == args.tls, f"tls {first['tls']}, expected {args.tls}")
    if args.tls == "static":
        check(isinstance(first.get("tls_offset"), int), "static resolution without tls_offset")
    else:
        check(first.get("module_id", 0) >= 1 and "offset" in first,
              "dynamic resolution without module_id/offset")
    check(objects[0] is first, "the module object must come first")
    for tid, expected in fixture.states.items():
        check(tid in threads, f"resolve did not list thread {tid}")
        got = threads[tid]
        check(got["slot"] == expected["slot"],
              f"thread {tid} (k={expected['k']}): slot {got['slot']}, the thread's own "
              f"&otel_thread_ctx_v1 is {expected['slot']}")
        check_context(got, expected, f"resolve, thread {tid} (k={expected['k']})")
    code, text, err = run_reader(args.reader, ["resolve", "--pid", str(fixture.pid)])
    check(code == 0, f"resolve (text) exited {code}: {err.strip()}")
    check(args.model in text, f"text output does not name the model:\n{text}")
    for tid in fixture.states:
        check(f" {tid} " in text, f"text output lacks thread {tid}")
    print(f"resolve ok: {first['library']} {first['access_model']} {first['tls']}, "
          f"{len(fixture.states)} threads")


def check_syscalls(args, fixture, first_round, extra=()):
    reader = StreamingReader(args.reader, ["syscalls", "--pid", str(fixture.pid), "--syscall",
                                           "write", "--format", "json", *extra])
    try:
        reader.wait_attached()
        expected = {}  # (tid, marker) -> state
        for r in range(first_round, first_round + ROUNDS):
            fixture.command(f"round {r}", "round_done")
            for tid, state in fixture.states.items():
                check(state["round"] == r, f"thread {tid} did not report round {r}")
                expected[(tid, state["marker"])] = dict(state)
        out = reader.stop()
    finally:
        reader.kill()
    events = json_lines(out)
    markers = {m for (_, m) in expected}
    seen = {}
    for e in events:
        for field in ("tid", "syscall", "fd", "count", "record", "valid", "trace_id", "span_id",
                      "trace_flags"):
            check(field in e, f"event lacks {field}: {e}")
        check(e["syscall"] == "write", f"event for another syscall: {e}")
        if e["count"] in markers:
            key = (e["tid"], e["count"])
            check(key in expected, f"marker write of {e['count']} bytes from unexpected tid: {e}")
            check(key not in seen, f"marker {key} reported twice")
            seen[key] = e
    for key, state in expected.items():
        check(key in seen, f"marker write {key} (k={state['k']}, round {state['round']}) missing")
        check_context(seen[key], state, f"syscalls, tid {key[0]} round {state['round']}")
    summary = reader.summary()
    check(summary.get("dropped") == "0", f"events dropped: {summary}")
    print(f"syscalls {' '.join(extra)} ok: {len(expected)} marker writes attributed, "
          f"{len(events)} events")


def check_profile(args, fixture):
    states = dict(fixture.states)
    out = fixture.profile(args.reader, ["--format", "json"], 300)
    samples = json_lines(out)
    per_tid = {}
    for s in samples:
        per_tid.setdefault(s["tid"], []).append(s)
    for tid, state in states.items():
        for s in per_tid.get(tid, []):
            check_context(s, state, f"profile sample of tid {tid} (k={state['k']})")
        if state["trace_id"]:
            check(per_tid.get(tid), f"no sample of spinning thread {tid} (k={state['k']})")
    print(f"profile json ok: {len(samples)} samples, threads {sorted(per_tid)}")

    out = fixture.profile(args.reader, [])
    known = {s["trace_id"] for s in states.values() if s["trace_id"]}
    ranked = {}
    for line in out.splitlines()[2:]:
        cols = line.split()
        check(len(cols) >= 6, f"table line {line!r}")
        trace = cols[-1] if cols[0] != "-" else ""
        check(cols[0] == "-" or trace in known, f"table ranks an unknown trace: {line!r}")
        ranked[trace] = int(cols[1])
    for trace in known:
        check(ranked.get(trace, 0) > 0, f"table lacks spinning trace {trace}:\n{out}")
    samples = [ranked[t] for t in known]
    print(f"profile table ok: {len(known)} traces ranked, samples {samples}")

    out = fixture.profile(args.reader, ["--format", "folded"])
    traces = {s["trace_id"]: s["span_id"] for s in states.values() if s["trace_id"]}
    spin_lines = [l for l in out.splitlines() if "ctxfix_spin" in l]
    check(spin_lines, f"no folded stack names ctxfix_spin:\n{out[:2000]}")
    for line in spin_lines:
        head = line.split(";")[:2]
        check(head[0].startswith("trace_") and head[0][6:] in traces,
              f"ctxfix_spin stack without a spinning thread's trace: {line}")
        check(head[1] == "span_" + traces[head[0][6:]], f"wrong span on {line}")
    print(f"profile folded ok: {len(spin_lines)} ctxfix_spin stacks")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--reader", required=True)
    parser.add_argument("--fixture", required=True)
    parser.add_argument("--dlopen")
    parser.add_argument("--env", action="append", default=[])
    parser.add_argument("--model", required=True)
    parser.add_argument("--tls", required=True, choices=["static", "dynamic"])
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--raw-tp", action="store_true",
                        help="also run syscalls on the raw tracepoint")
    args = parser.parse_args()
    require_root()
    env = dict(kv.split("=", 1) for kv in args.env)
    fixture = Fixture(args.fixture, args.dlopen, env)
    try:
        check_resolve(args, fixture)
        check_syscalls(args, fixture, 1)
        check_resolve(args, fixture)
        if args.raw_tp:
            check_syscalls(args, fixture, 1 + ROUNDS, ["--raw-tp"])
        if args.profile:
            check_profile(args, fixture)
    finally:
        fixture.quit()
    print("PASS")


if __name__ == "__main__":
    main()
