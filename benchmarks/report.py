#!/usr/bin/env python3
"""Assembles the summary of one scripts/bench.sh run from its results directory.

  report.py DIR > DIR/summary.md

Reads what bench.sh wrote there: command.txt, machine.txt, native-*.json (Google Benchmark),
jmh-summary.md (benchmarks/jmh/summarize.py), memory.txt (ParkedThreads), bpf.txt
(benchmarks/reader/benchReader.py). Missing parts are reported as not run. It only copies and
tabulates measured values: nothing here is typed in by hand.
"""
import glob
import json
import os
import re
import sys

# Record size and the target: 64 B per record plus at most 10% pool overhead.
MEMORY_TARGET_OVERHEAD_PCT = 10.0


def read(path):
    return open(path).read() if os.path.exists(path) else None


def native_table(paths):
    rows = ["| benchmark | real time (median) | CPU time (median) | CV of real time "
            "| repetitions |",
            "|---|---|---|---|---|"]
    for path in paths:
        with open(path) as f:
            data = json.load(f)
        runs = {}
        for b in data["benchmarks"]:
            if b.get("error_occurred"):
                rows.append(f"| {b['name']} | ERROR: {b.get('error_message', '')} | | | |")
                continue
            name = b.get("run_name", b["name"])
            aggregate = b.get("run_type") == "aggregate"
            kind = b.get("aggregate_name", "single") if aggregate else "single"
            runs.setdefault(name, {})[kind] = b
        for name, kinds in runs.items():
            m = kinds.get("median", kinds.get("single"))
            if m is None:
                continue
            unit = m.get("time_unit", "ns")
            cv = kinds.get("cv")
            reps = m.get("repetitions", 1)
            cv_text = f"{cv['real_time'] * 100:.1f}%" if cv else "n/a"
            rows.append(f"| {name} | {m['real_time']:,.1f} {unit} | {m['cpu_time']:,.1f} {unit} "
                        f"| {cv_text} | {reps} |")
    return "\n".join(rows)


def memory_section(text):
    m = re.search(r"^memory (.*)$", text, re.M)
    if not m:
        return "ParkedThreads printed no result:\n\n```\n" + text[-2000:] + "\n```\n"
    f = dict(w.split("=", 1) for w in m.group(1).split())
    overhead = float(f["overhead_pct"])
    verdict = ("meets" if overhead <= MEMORY_TARGET_OVERHEAD_PCT else "MISSES")
    return (f"| live virtual threads | records live | record size | pool resident bytes | "
            f"bytes per thread | pool overhead | slabs | agent fixed footprint "
            f"| libvtctx.so RSS |\n"
            f"|---|---|---|---|---|---|---|---|---|\n"
            f"| {int(f['threads']):,} | {int(f['records_live']):,} | {f['record_size']} B | "
            f"{int(f['pool_resident_bytes']):,} | {float(f['bytes_per_thread']):.2f} B | "
            f"{overhead:+.2f}% | {f['pool_slabs']} | {int(f['fixed_footprint_bytes']):,} B | "
            f"{int(f['library_rss_bytes']):,} B |\n\n"
            f"Target: {f['record_size']} B per record plus at most "
            f"{MEMORY_TARGET_OVERHEAD_PCT:.0f}% pool overhead: {verdict} it. Raw line: "
            f"`{m.group(0)}`\n")


def main():
    d = sys.argv[1]
    out = ["# vtctx benchmarks: one run of scripts/bench.sh\n"]
    out.append("## Command\n\n```\n" + (read(os.path.join(d, "command.txt")) or "?").strip()
               + "\n```\n")
    out.append("## Machine\n\n```\n" + (read(os.path.join(d, "machine.txt")) or "?").strip()
               + "\n```\n")
    jmh = read(os.path.join(d, "jmh-summary.md"))
    out.append("## JMH: virtual-thread workloads per configuration\n")
    out.append((jmh + "\n![wall time relative to no agent](jmh.svg)\n\n"
                "![CPU time relative to no agent](jmh-cpu.svg)\n") if jmh else "Not run.\n")
    natives = sorted(glob.glob(os.path.join(d, "native-*.json")))
    out.append("## Native (Google Benchmark)\n")
    out.append(native_table(natives) + "\n" if natives else "Not run.\n")
    memory = read(os.path.join(d, "memory.txt"))
    out.append("## Memory\n")
    out.append(memory_section(memory) if memory else "Not run.\n")
    bpf = read(os.path.join(d, "bpf.txt"))
    out.append("## Reader BPF cost per event (benchmarks/reader/benchReader.py)\n")
    out.append("```\n" + bpf.strip() + "\n```\n" if bpf else "Not run (needs root).\n")
    print("\n".join(out))


if __name__ == "__main__":
    main()
