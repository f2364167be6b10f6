#!/usr/bin/env python3
"""Turns run.py's JMH results into tables and a plot.

  summarize.py DIR [--md OUT.md] [--svg OUT.svg] [--json OUT.json]

Per workload and configuration: the median over forks (one fork per round) of the fork's score
(mean of its measurement iterations), the spread over forks (+- half the range, shown as
"error"), the difference and ratio against no agent and against the empty-callback agent, and
the costs per transition (mount+unmount pair, counted by vtctx: the "mounts" secondary metric)
and per virtual thread. Wall time and process CPU time (the "cpu" secondary metric) both.
A difference is marked "~" when it is smaller than the two configurations' errors together.
The reader configurations' BPF run time (vtctx-reader --bpf-stats) comes from reader-*.log.
"""
import argparse
import glob
import json
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from svgBars import grouped_bars_svg  # noqa: E402

CONFIG_ORDER = ["none", "capability", "empty_callbacks", "empty_callbacks_tls", "vtctx",
                "vtctx_bind_use", "vtctx_shim", "vtctx_shim_profile", "vtctx_shim_syscalls"]
CONFIG_TEXT = {
    "none": "no agent",
    "capability": "agent, capability only (events off)",
    "empty_callbacks": "agent, empty callbacks (same events as vtctx)",
    "empty_callbacks_tls": "empty callbacks + JVMTI thread-local storage get/set as vtctx",
    "vtctx": "vtctx publishing",
    "vtctx_bind_use": "vtctx, bind=use (records only for threads that publish)",
    "vtctx_shim": "vtctx + shim writes",
    "vtctx_shim_profile": "vtctx + shim + `vtctx-reader profile` 99 Hz",
    "vtctx_shim_syscalls": "vtctx + shim + `vtctx-reader syscalls --syscall write`",
}
# workload -> (label, virtual threads per op: per-thread costs only where threads are the point)
WORKLOADS = {
    "transition": ("Transition (1 vthread, 10,000 yields)", None),
    "transitionWithSpan": ("Transition with a span current", None),
    "parkUnpark": ("ParkUnpark (2 vthreads, 10,000 hand-offs)", None),
    "churn": ("Churn (start+join 1,000 vthreads)", 1000),
    "request": ("Request (100 requests: span, blocking call, CPU)", 100),
}
BASES = ("none", "empty_callbacks")


def load(results_dir):
    """{(workload, config): {"wall": [per fork], "cpu": [...], "mounts": [...]}}"""
    data = {}
    for path in sorted(glob.glob(os.path.join(results_dir, "jmh-r*-*.json"))):
        config = re.match(r"jmh-r\d+-(.+)\.json$", os.path.basename(path)).group(1)
        with open(path) as f:
            for result in json.load(f):
                workload = result["benchmark"].rsplit(".", 1)[-1]
                entry = data.setdefault((workload, config), {"wall": [], "cpu": [], "mounts": []})
                for fork in result["primaryMetric"]["rawData"]:
                    entry["wall"].append(statistics.mean(fork))
                for key in ("cpu", "mounts"):
                    metric = result.get("secondaryMetrics", {}).get(key)
                    if metric:
                        entry[key] += [statistics.mean(f) for f in metric["rawData"]]
    return data


def stats(values):
    if not values:
        return None
    return {"median": statistics.median(values), "error": (max(values) - min(values)) / 2,
            "min": min(values), "max": max(values), "forks": len(values)}


def load_reader(results_dir):
    """{(workload, config): {"ns_per_run": [...], "runs": [...], "events": [...]}}"""
    out = {}
    for path in sorted(glob.glob(os.path.join(results_dir, "reader-r*-*.log"))):
        for line in open(path):
            m = re.match(r"(\S+) \S+\.(\w+) vtctx-reader: summary: (.*)", line)
            if not m:
                continue
            fields = dict(w.split("=", 1) for w in m.group(3).split() if "=" in w)
            e = out.setdefault((m.group(2), m.group(1)),
                               {"ns_per_run": [], "runs": [], "events": []})
            if "bpf_ns_per_run" in fields:
                e["ns_per_run"].append(float(fields["bpf_ns_per_run"]))
                e["runs"].append(int(fields["bpf_runs"]))
            e["events"].append(int(fields.get("samples", fields.get("events", "0"))))
    return out


def summarize(data):
    """Aggregates and comparisons, as one JSON-able dict."""
    summary = {}
    for workload in WORKLOADS:
        configs = [c for c in CONFIG_ORDER if (workload, c) in data]
        if not configs:
            continue
        # Transitions per op: vtctx's own mount count (all vtctx configurations agree).
        mounts = [m for c in configs for m in data[(workload, c)]["mounts"]]
        pairs = statistics.median(mounts) if mounts else None
        threads = WORKLOADS[workload][1]
        rows = {}
        for c in configs:
            rows[c] = {k: stats(data[(workload, c)][k]) for k in ("wall", "cpu")}
        for c in configs:
            for metric in ("wall", "cpu"):
                s = rows[c][metric]
                if s is None:
                    continue
                for base in BASES:
                    b = rows.get(base, {}).get(metric)
                    if b is None:
                        continue
                    diff = s["median"] - b["median"]
                    s[f"vs_{base}"] = {
                        "diff_us": diff, "ratio": s["median"] / b["median"],
                        "within_error": abs(diff) <= s["error"] + b["error"],
                        "diff_ns_per_transition": diff * 1e3 / pairs if pairs else None,
                        "diff_ns_per_thread": diff * 1e3 / threads if threads else None,
                    }
                s["ns_per_transition"] = s["median"] * 1e3 / pairs if pairs else None
                s["ns_per_thread"] = s["median"] * 1e3 / threads if threads else None
        summary[workload] = {"label": WORKLOADS[workload][0], "transitions_per_op": pairs,
                             "threads_per_op": WORKLOADS[workload][1], "configs": rows}
    return summary


def cell(value, spec, suffix=""):
    return "n/a" if value is None else f"{value:{spec}}{suffix}"


def metric_table(w, metric):
    """One markdown table of `metric` (wall or cpu) for every configuration of a workload."""
    rows = ["| configuration | us/op | error | vs none | ratio | vs empty cb | ratio "
            "| ns/transition | Δ ns/transition vs none | Δ ns/transition vs empty cb "
            "| ns/thread | Δ ns/thread vs none |",
            "|---" * 12 + "|"]
    for c, row in w["configs"].items():
        s = row[metric]
        if s is None:
            rows.append(f"| {c} |" + " n/a |" * 11)
            continue
        cells = [c, cell(s["median"], ",.1f"), "± " + cell(s["error"], ",.1f")]
        for base in BASES:
            d = s.get(f"vs_{base}")
            if d is None:
                cells += ["", ""]
            else:
                cells += [cell(d["diff_us"], "+,.1f", " ~" if d["within_error"] else ""),
                          cell(d["ratio"], ".2f", "x")]
        cells.append(cell(s["ns_per_transition"], ",.1f"))
        for base in BASES:
            d = s.get(f"vs_{base}")
            cells.append(cell(d["diff_ns_per_transition"], "+,.1f") if d else "")
        cells.append(cell(s["ns_per_thread"], ",.0f"))
        d = s.get("vs_none")
        cells.append(cell(d["diff_ns_per_thread"], "+,.0f") if d else "")
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)


def brief_table(summary):
    """One compact table over all workloads: wall and CPU per op, ratios, vtctx's own share."""
    rows = ["| workload | configuration | wall us/op | wall vs none | CPU us/op | CPU vs none "
            "| CPU vs empty cb | CPU Δ ns/transition vs empty cb | CPU Δ ns/thread vs none |",
            "|---" * 9 + "|"]
    for workload, w in summary.items():
        for c, row in w["configs"].items():
            v, cpu = row["wall"], row["cpu"]

            def vs(s, base, key, spec, suffix=""):
                d = s.get(f"vs_{base}") if s else None
                if d is None or d[key] is None:
                    return ""
                return cell(d[key], spec, suffix) + (" ~" if d["within_error"] else "")
            rows.append(" | ".join([
                f"| {workload}", c, f"{v['median']:,.1f} ± {v['error']:,.1f}",
                vs(v, "none", "ratio", ".2f", "x"),
                f"{cpu['median']:,.1f} ± {cpu['error']:,.1f}" if cpu else "n/a",
                vs(cpu, "none", "ratio", ".2f", "x"),
                vs(cpu, "empty_callbacks", "ratio", ".2f", "x"),
                vs(cpu, "empty_callbacks", "diff_ns_per_transition", "+,.0f"),
                vs(cpu, "none", "diff_ns_per_thread", "+,.0f")]) + " |")
    return "\n".join(rows)


def markdown(summary, reader):
    out = ["| configuration | what the fork runs |", "|---|---|"]
    present = {c for w in summary.values() for c in w["configs"]}
    out += [f"| {c} | {CONFIG_TEXT[c]} |" for c in CONFIG_ORDER if c in present]
    out.append("\nAll workloads and configurations at a glance (\"~\": within the errors):\n")
    out.append(brief_table(summary) + "\n")
    for workload, w in summary.items():
        pairs = w["transitions_per_op"]
        forks = sorted({r["wall"]["forks"] for r in w["configs"].values() if r["wall"]})
        out.append(f"#### {w['label']}\n")
        out.append(f"Per op: {cell(pairs, ',.0f')} transitions (mount+unmount pairs, counted by "
                   f"vtctx), {cell(w['threads_per_op'], ',')} virtual threads. "
                   f"Forks per configuration: {', '.join(map(str, forks))}.\n")
        out.append("Wall time:\n")
        out.append(metric_table(w, "wall") + "\n")
        out.append("Process CPU time:\n")
        out.append(metric_table(w, "cpu") + "\n")
    if reader:
        out.append("#### Readers attached to the JMH forks (kernel BPF statistics)\n")
        out.append("| workload | configuration | forks | BPF runs per fork (median) "
                   "| BPF ns/run median [min-max] | samples or matched events per fork (median) |")
        out.append("|---|---|---|---|---|---|")
        for (workload, config), e in sorted(reader.items()):
            ns = e["ns_per_run"]
            ns_text = (f"{statistics.median(ns):,.0f} [{min(ns):,.0f}-{max(ns):,.0f}]"
                       if ns else "n/a")
            runs = f"{statistics.median(e['runs']):,.0f}" if e["runs"] else "n/a"
            out.append(f"| {workload} | {config} | {len(e['events'])} | {runs} | {ns_text} "
                       f"| {statistics.median(e['events']):,.0f} |")
        out.append("")
    return "\n".join(out)


def plot(summary, metric):
    groups = []
    for workload, w in summary.items():
        none = w["configs"].get("none", {}).get(metric)
        if none is None:
            continue
        bars = []
        for c, row in w["configs"].items():
            s = row[metric]
            if s is None:
                continue
            bars.append((c, s["median"] / none["median"], s["min"] / none["median"],
                         s["max"] / none["median"]))
        groups.append((w["label"], bars))
    what = "wall time" if metric == "wall" else "process CPU time"
    return grouped_bars_svg(
        groups, CONFIG_ORDER,
        title=f"{what} per operation relative to no agent (median of forks; whiskers: min-max)",
        xlabel=f"{what} / {what} without an agent")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("results_dir")
    p.add_argument("--md")
    p.add_argument("--svg", help="wall-time plot; the CPU-time plot goes next to it (-cpu.svg)")
    p.add_argument("--json")
    p.add_argument("--brief", action="store_true", help="print only the compact table")
    args = p.parse_args()
    data = load(args.results_dir)
    if not data:
        sys.exit(f"summarize.py: no jmh-r*-*.json in {args.results_dir}")
    summary = summarize(data)
    reader = load_reader(args.results_dir)
    if args.brief:
        print(brief_table(summary))
        return
    text = markdown(summary, reader)
    print(text)
    if args.md:
        with open(args.md, "w") as f:
            f.write(text + "\n")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"jmh": summary,
                       "readers": {f"{w}/{c}": e for (w, c), e in reader.items()}}, f, indent=1)
    if args.svg:
        with open(args.svg, "w") as f:
            f.write(plot(summary, "wall"))
        with open(re.sub(r"\.svg$", "", args.svg) + "-cpu.svg", "w") as f:
            f.write(plot(summary, "cpu"))


if __name__ == "__main__":
    main()
