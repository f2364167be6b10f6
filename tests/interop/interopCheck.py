#!/usr/bin/env python3
"""Checks what an external OTEP 4947 reader reported against InteropWorkload's known contexts.

usage: interopCheck.py otlp|csd WORKLOAD_STDOUT READER_OUTPUT [--pid PID] [--min N]
                       [--runtime-key | --runtime-key-optional]

  otlp  READER_OUTPUT holds "SAMPLE pid=P n=N trace=T span=S k=v ..." lines (one per OTLP
        profile sample, printed by a small OTLP receiver fed by the OpenTelemetry eBPF profiler;
        labels are the sample attributes process.context.label.<key>; thread.id is the carrier)
  csd   READER_OUTPUT is ctx-sharing-demo's `tail` log
        ("[v2] iteration = I, thread = TID, labels = [trace_id=T, span_id=S, k=v, ...]")

Every reported context must be exactly one of the workload's EXPECT lines (trace-id, span-id and
the three attributes method/route/user, by name). With --runtime-key (workload flag runtime-key)
a report may also carry phase=late, the key registered while the readers run, and at least one
must: the reader re-read the process context and named the new key. --runtime-key-optional
accepts phase=late without requiring it (readers that re-read the context only now and then). Prints one line per virtual thread (reports,
distinct carrier tids) and ends with "RESULT OK ..." or "RESULT FAIL ..." (exit status 0/1).
"""
import re
import sys


def expected(path):
    exp = {}
    pid = None
    for line in open(path, encoding="utf-8", errors="replace"):
        f = line.split()
        if f[:1] == ["EXPECT"]:
            exp[f[2]] = {"index": int(f[1]), "span": f[3], "method": f[4], "route": f[5],
                         "user": f[6]}
        elif f[:1] == ["READY"]:
            pid = f[1]
    return exp, pid


def otlp_reports(path, pid):
    for line in open(path, encoding="utf-8", errors="replace"):
        if not line.startswith("SAMPLE ") or f" pid={pid} " not in line:
            continue
        kv = dict(t.split("=", 1) for t in line.split()[1:] if "=" in t)
        if kv.get("trace", "-") == "-":
            # a sample without a link: the profiler saw no valid context (not a carrier, or a
            # carrier between two virtual threads)
            yield None, kv.get("thread.id"), int(kv.get("n", 1)), kv.get("thread.name", "")
            continue
        labels = {k[len("process.context.label."):]: v for k, v in kv.items()
                  if k.startswith("process.context.label.")}
        yield (kv["trace"], kv["span"], labels), kv.get("thread.id"), int(kv.get("n", 1)), \
            kv.get("thread.name", "")


CSD = re.compile(r"\[v2\] iteration = \d+, thread = (\d+), labels = \[(.*)\]")


def csd_reports(path):
    for line in open(path, encoding="utf-8", errors="replace"):
        line = re.sub(r"\x1b\[[0-9;]*m", "", line)
        m = CSD.search(line)
        if not m:
            continue
        kv = dict(p.split("=", 1) for p in m.group(2).split(", ") if "=" in p)
        labels = {k: v for k, v in kv.items() if k not in ("trace_id", "span_id")}
        yield (kv.get("trace_id"), kv.get("span_id"), labels), m.group(1), 1, ""


def main():
    args = sys.argv[1:]
    minimum = 1
    pid_override = None
    if "--min" in args:
        i = args.index("--min")
        minimum = int(args[i + 1])
        del args[i:i + 2]
    if "--pid" in args:
        i = args.index("--pid")
        pid_override = args[i + 1]
        del args[i:i + 2]
    runtime_key = "--runtime-key" in args or "--runtime-key-optional" in args
    runtime_key_required = "--runtime-key" in args
    args = [a for a in args if a not in ("--runtime-key", "--runtime-key-optional")]
    mode, workload, output = args
    exp, pid = expected(workload)
    pid = pid_override or pid
    reports = otlp_reports(output, pid) if mode == "otlp" else csd_reports(output)
    seen = {t: {"n": 0, "tids": set()} for t in exp}
    bad = []
    unlinked = 0
    total = 0
    with_phase = 0
    for ctx, tid, n, tname in reports:
        if ctx is None:
            unlinked += n
            continue
        total += n
        trace, span, labels = ctx
        e = exp.get(trace)
        want = None if e is None else (e["span"], {"method": e["method"], "route": e["route"],
                                                   "user": e["user"]})
        if runtime_key and labels.get("phase") == "late":
            labels = {k: v for k, v in labels.items() if k != "phase"}
            with_phase += n
        if want is None or (span, labels) != want:
            bad.append(f"tid {tid}: trace={trace} span={span} labels={labels} expected={want}")
            continue
        seen[trace]["n"] += n
        seen[trace]["tids"].add(tid)
    for trace, s in sorted(seen.items(), key=lambda kv: exp[kv[0]]["index"]):
        print(f"vt {exp[trace]['index']}  trace={trace} span={exp[trace]['span']}  "
              f"reports={s['n']}  carriers={sorted(s['tids'])}")
    for b in bad[:10]:
        print("MISMATCH", b)
    missing = [exp[t]["index"] for t, s in seen.items() if s["n"] < minimum]
    moved = sum(1 for s in seen.values() if len(s["tids"]) > 1)
    summary = (f"reports={total} mismatches={len(bad)} virtual_threads_seen="
               f"{len(exp) - len(missing)}/{len(exp)} seen_on_several_carriers={moved} "
               f"reports_without_context={unlinked}")
    if runtime_key:
        summary += f" reports_with_runtime_key={with_phase}"
    if bad or missing or total == 0 or (runtime_key_required and with_phase == 0):
        print(f"RESULT FAIL {summary} missing={missing}")
        return 1
    print(f"RESULT OK {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
