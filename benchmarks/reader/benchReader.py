#!/usr/bin/env python3
"""Measures vtctx-reader: BPF cost per event (kernel BPF stats) and whether user space keeps up.

  benchReader.py --reader R --loadgen L [--runs 5] [--seconds 5]

syscalls: loadGen makes write(2)s at 100k/s (and unpaced) while `vtctx-reader syscalls --format
json --bpf-stats` prints every one of them to /dev/null; reports events vs writes, drops,
ns per BPF run and the upper bound per matched event. profile: loadGen spins on 2 threads while
`profile --hz 999 --bpf-stats` samples (table: no stacks; folded: user+kernel stacks).
FLOOR rows load the same programs with --bpf-floor (they stop right after the pid filter): the
fixed cost of a run on this machine, which the full rows include.
Medians of --runs runs. Not a test: it asserts nothing, it prints numbers.
"""
import argparse
import json
import statistics
import subprocess
import sys

from vtctxtest import LineReader, StreamingReader


def one_run(args, loadgen_args, reader_args):
    gen = subprocess.Popen([args.loadgen] + loadgen_args, stdin=subprocess.PIPE,
                           stdout=subprocess.PIPE, text=True)
    out = LineReader(gen.stdout)
    pid = json.loads(out.wait_for(lambda l: '"ready"' in l, 30, "loadGen ready"))["pid"]
    reader = StreamingReader(args.reader, reader_args(pid))
    # Output goes to /dev/null-like sink: StreamingReader collects stdout; avoid the memory cost
    # by discarding it below.
    try:
        reader.wait_attached()
        gen.stdin.write("go\n")
        gen.stdin.flush()
        done = json.loads(out.wait_for(lambda l: '"done"' in l, args.seconds + 60, "loadGen"))
        stdout = reader.stop()
    finally:
        reader.kill()
        gen.wait()
    summary = reader.summary()
    return done, summary, len(stdout.splitlines())


def median(values):
    return statistics.median(values) if values else float("nan")


def spread(values):
    """'median [min-max]' of a list of numbers."""
    return f"{median(values):.0f} [{min(values):.0f}-{max(values):.0f}]"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--reader", required=True)
    parser.add_argument("--loadgen", required=True)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--only", choices=["syscalls", "profile"], help="run one part only")
    args = parser.parse_args()

    print(f"# {args.runs} runs each, {args.seconds} s per run, medians")
    for rate, floor in ((("100000", False), ("100000", True), ("0", False))
                        if args.only != "profile" else ()):
        rows = []
        for _ in range(args.runs):
            done, s, lines = one_run(
                args,
                ["--rate", rate, "--seconds", str(args.seconds), "--threads", "2"],
                lambda pid: ["syscalls", "--pid", str(pid), "--syscall", "write", "--format",
                             "json", "--bpf-stats"] + (["--bpf-floor"] if floor else []))
            rows.append({
                "writes": done["writes"], "rate": done["writes"] / done["seconds"],
                "events": int(s["events"]), "lines": lines, "dropped": int(s["dropped"]),
                "ns_run": float(s.get("bpf_ns_per_run", "nan")),
                "ns_event_max": float(s.get("bpf_ns_per_event_max", "nan")),
            })
            print(f"  syscalls rate={rate}: {rows[-1]}", file=sys.stderr)
        label = ("100k/s paced" if rate != "0" else "unpaced") + (" FLOOR" if floor else "")
        print(f"syscalls {label}: writes/s {median([r['rate'] for r in rows]):.0f}, "
              f"writes {median([r['writes'] for r in rows]):.0f}, "
              f"json lines {median([r['lines'] for r in rows]):.0f}, "
              f"dropped {median([r['dropped'] for r in rows]):.0f} "
              f"(max {max(r['dropped'] for r in rows)}), "
              f"BPF ns/run {spread([r['ns_run'] for r in rows])}, "
              f"BPF ns/event (upper bound) {spread([r['ns_event_max'] for r in rows])}")

    for fmt, floor in ((("table", True), ("table", False), ("json", False), ("folded", False))
                       if args.only != "syscalls" else ()):
        rows = []
        for _ in range(args.runs):
            done, s, _ = one_run(
                args, ["--spin", "--seconds", str(args.seconds), "--threads", "2"],
                lambda pid: ["profile", "--pid", str(pid), "--hz", "999", "--format", fmt,
                             "--bpf-stats"] + (["--bpf-floor"] if floor else []))
            rows.append({"samples": int(s["samples"]), "dropped": int(s["dropped"]),
                         "ns_run": float(s.get("bpf_ns_per_run", "nan")),
                         "ns_sample_max": float(s.get("bpf_ns_per_sample_max", "nan"))})
            print(f"  profile {fmt}: {rows[-1]}", file=sys.stderr)
        print(f"profile --hz 999 --format {fmt}{' FLOOR' if floor else ''}: samples {median([r['samples'] for r in rows]):.0f}, "
              f"dropped {max(r['dropped'] for r in rows)}, "
              f"BPF ns/run {spread([r['ns_run'] for r in rows])}, "
              f"BPF ns/sample (upper bound) {spread([r['ns_sample_max'] for r in rows])}")


if __name__ == "__main__":
    main()
