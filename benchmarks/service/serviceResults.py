#!/usr/bin/env python3
"""Turns measureService.py's runs into the service benchmark's tables, plot and headline.

  serviceResults.py DIR [--md OUT.md] [--svg OUT.svg] [--json OUT.json]
                    [--publish-page PAGE.md] [--publish-readme README.md] [--svg-link NAME]

Per variant (JDK x carriers) and configuration: the median over rounds of each metric with its
min..max, and the ratios to no agent, to the empty-callback agent and to vtctx, paired per round
(the run of round r against the baseline's run of the same round), as the median of the
per-round ratios with their min..max. A ratio whose min..max includes 1 is marked "~": within
the noise of this run. --publish-page and --publish-readme replace the text between the
`<!-- service-results:begin -->` and `<!-- service-results:end -->` markers of those files.
"""
import argparse
import json
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "jmh"))
from svgBars import grouped_bars_svg  # noqa: E402

CONFIG_ORDER = ["none", "empty_callbacks", "vtctx", "vtctx_shim", "identity",
                "identity_shim", "vtctx_shim_profile", "vtctx_shim_syscalls"]
CONFIG_TEXT = {
    "none": "no agent",
    "empty_callbacks": "an agent with empty callbacks for vtctx's events (the JVM's delivery cost)",
    "vtctx": "vtctx publishing on every mount/unmount",
    "vtctx_shim": "vtctx + the shim writing every span change into the record",
    "identity": "vtctx with `channel=identity` (no JVMTI environment), nothing publishing",
    "identity_shim": "vtctx with `channel=identity` + the shim writing every span change",
    "vtctx_shim_profile": "vtctx + shim + `vtctx-reader profile --hz 99` attached",
    "vtctx_shim_syscalls": "vtctx + shim + `vtctx-reader syscalls --syscall write` attached",
}
# key -> (path in a run, label, format)
METRICS = {
    "cpu": (("fixed", "cpu_us_per_request"), "CPU us/request at the fixed rate", ",.1f"),
    "cpu_sat": (("saturation", "cpu_us_per_request"), "CPU us/request at saturation", ",.1f"),
    "p50": (("fixed", "p50_ms"), "p50 ms", ",.2f"),
    "p99": (("fixed", "p99_ms"), "p99 ms", ",.2f"),
    "max_rps": (("saturation", "throughput"), "max requests/s", ",.0f"),
}
BASES = ("none", "empty_callbacks", "vtctx", "vtctx_shim")
BEGIN, END = "<!-- service-results:begin -->", "<!-- service-results:end -->"


def load(results_dir):
    runs = []
    with open(os.path.join(results_dir, "runs.jsonl")) as f:
        for line in f:
            if line.strip():
                runs.append(json.loads(line))
    if not runs:
        sys.exit(f"serviceResults: no runs in {results_dir}/runs.jsonl")
    return runs


def variant_key(run):
    return (run["jdk"], run["carriers_option"])


def variant_label(key, carriers):
    jdk, option = key
    what = f"{carriers} carriers (default)" if option == "default" else f"{option} carrier"
    return f"JDK {jdk}, {what}"


def value(run, metric):
    phase, field = METRICS[metric][0]
    return run[phase][field]


def spread(values):
    return {"median": statistics.median(values), "min": min(values), "max": max(values),
            "n": len(values)}


def summarize(runs):
    """{variant: {"label", "rate", "configs": {config: {metric: stats, "vs_<base>": {...}}}}}"""
    out = {}
    by_variant = {}
    for run in runs:
        by_variant.setdefault(variant_key(run), []).append(run)
    for key in sorted(by_variant, key=lambda k: (-int(k[0]), k[1] != "default", k[1])):
        vruns = by_variant[key]
        table = {(r["config"], r["round"]): r for r in vruns}
        configs = [c for c in CONFIG_ORDER if any(r["config"] == c for r in vruns)]
        rows = {}
        for c in configs:
            mine = {r["round"]: r for r in vruns if r["config"] == c}
            row = {m: spread([value(r, m) for r in mine.values()]) for m in METRICS}
            mounts = [r["mounts_per_request"] for r in mine.values() if "mounts_per_request" in r]
            vthreads = [r["vthreads_per_request"] for r in mine.values()
                        if "vthreads_per_request" in r]
            row["failed"] = sum(r[p].get("failed", 0) for r in mine.values()
                                for p in ("fixed", "saturation"))
            row["mounts_per_request"] = statistics.median(mounts) if mounts else None
            row["vthreads_per_request"] = statistics.median(vthreads) if vthreads else None
            publishing = [r["publishing_threads_per_request"] for r in mine.values()
                          if "publishing_threads_per_request" in r]
            row["publishing_threads_per_request"] = (statistics.median(publishing)
                                                     if publishing else None)
            for base in BASES:
                if CONFIG_ORDER.index(base) >= CONFIG_ORDER.index(c):
                    continue  # compared only with the configurations it adds to
                ratios = {}
                for m in METRICS:
                    paired = [value(r, m) / value(table[(base, rnd)], m)
                              for rnd, r in mine.items() if (base, rnd) in table]
                    if paired:
                        s = spread(paired)
                        # One round cannot tell noise from a difference: None.
                        s["noise"] = s["min"] <= 1 <= s["max"] if s["n"] > 1 else None
                        ratios[m] = s
                if ratios:
                    row[f"vs_{base}"] = ratios
            rows[c] = row
        carriers = vruns[0]["carriers"]
        out[key] = {"label": variant_label(key, carriers), "rate": vruns[0].get("rate"),
                    "rounds": max(r["round"] for r in vruns), "java": vruns[0]["java"],
                    "configs": rows}
    return out


def fmt(v, spec):
    return "n/a" if v is None else f"{v:{spec}}"


def cell(s, spec):
    return f"{fmt(s['median'], spec)} ({fmt(s['min'], spec)}..{fmt(s['max'], spec)})"


def ratio_cell(row, base, metric):
    r = row.get(f"vs_{base}", {}).get(metric)
    if r is None:
        return ""
    mark = " ~" if r["noise"] else ""
    return f"{r['median']:.3f} [{r['min']:.2f}..{r['max']:.2f}]{mark}"


def pct(r):
    return f"{(r['median'] - 1) * 100:+.1f} %"


def pct_range(r):
    return f"{(r['min'] - 1) * 100:+.0f}..{(r['max'] - 1) * 100:+.0f} %"


def absolute_table(v):
    head = (["configuration"] + [METRICS[m][1] for m in METRICS] +
            ["mounts / virtual threads per request (vtctx's count)",
             "publishing threads per request (vtctx's count)", "failed requests (all rounds)"])
    rows = ["| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
    for c, row in v["configs"].items():
        counts = ""
        if row["mounts_per_request"] is not None:
            counts = f"{row['mounts_per_request']:.2f} / {row['vthreads_per_request']:.2f}"
        publishing = fmt(row.get("publishing_threads_per_request"), ".2f")
        publishing = "" if publishing == "n/a" else publishing
        rows.append("| " + " | ".join([c] + [cell(row[m], METRICS[m][2]) for m in METRICS]
                                      + [counts, publishing, f"{row['failed']:,}"]) + " |")
    return "\n".join(rows)


def ratio_table(v):
    cols = [("cpu", "none"), ("cpu", "empty_callbacks"), ("cpu", "vtctx"), ("cpu", "vtctx_shim"),
            ("p99", "none"),
            ("p99", "empty_callbacks"), ("p99", "vtctx"), ("max_rps", "none"),
            ("max_rps", "empty_callbacks")]
    names = {"cpu": "CPU/request", "p99": "p99", "max_rps": "max requests/s"}
    bases = {"none": "none", "empty_callbacks": "empty cb", "vtctx": "vtctx",
             "vtctx_shim": "vtctx + shim"}
    head = ["configuration"] + [f"{names[m]} vs {bases[b]}" for m, b in cols]
    rows = ["| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
    for c, row in v["configs"].items():
        if c == "none":
            continue
        rows.append("| " + " | ".join([c] + [ratio_cell(row, b, m) for m, b in cols]) + " |")
    return "\n".join(rows)


def said(rows, config, base, metric, what):
    """'what +x.x % (rounds a..b %, within noise)' for config against base, or None."""
    r = rows.get(config, {}).get(f"vs_{base}", {}).get(metric)
    if r is None:
        return None
    if r["noise"] is None:
        return f"{what} {pct(r)} (one round: noise unknown)"
    verdict = "within noise" if r["noise"] else "outside noise"
    return f"{what} {pct(r)} (rounds {pct_range(r)}, {verdict})"


def shares(v):
    """The sentences that answer the issue's question for one variant, from the numbers."""
    rows = v["configs"]
    comparisons = [
        ("vtctx's own share (vtctx vs empty callbacks)", "vtctx", "empty_callbacks",
         ("cpu", "p99", "max_rps")),
        ("the JVM's share (empty callbacks vs none)", "empty_callbacks", "none",
         ("cpu", "p99", "max_rps")),
        ("vtctx in all (vtctx vs none)", "vtctx", "none", ("cpu", "p99", "max_rps")),
        ("the shim (vtctx + shim vs vtctx)", "vtctx_shim", "vtctx", ("cpu", "p99")),
        ("channel=identity with the shim (vs none)", "identity_shim", "none",
         ("cpu", "p99", "max_rps")),
        ("channel=identity against channel=carrier (both with the shim)", "identity_shim",
         "vtctx_shim", ("cpu", "p99")),
        ("the profile reader (vs vtctx + shim)", "vtctx_shim_profile", "vtctx_shim", ("cpu",)),
        ("the syscalls reader (vs vtctx + shim)", "vtctx_shim_syscalls", "vtctx_shim", ("cpu",)),
    ]
    names = {"cpu": "CPU/request", "p99": "p99", "max_rps": "max throughput"}
    out = []
    own = rows.get("vtctx", {}).get("vs_empty_callbacks", {})
    verdicts = []
    for m in ("cpu", "p99"):
        r = own.get(m)
        if r is None:
            continue
        if r["noise"] is None:
            verdicts.append(f"{names[m]}: one round, not resolved")
        elif r["max"] <= 1.01:
            verdicts.append(f"{names[m]}: met (every round <= +1 %)")
        elif r["min"] > 1.01:
            verdicts.append(f"{names[m]}: missed (every round > +1 %)")
        else:
            verdicts.append(f"{names[m]}: not resolved by this run (rounds {pct_range(r)})")
    if verdicts:
        out.append("target, vtctx's own share <= 1 %: " + "; ".join(verdicts))
    for title, config, base, metrics in comparisons:
        parts = [said(rows, config, base, m, names[m]) for m in metrics]
        parts = [x for x in parts if x]
        if parts:
            out.append(f"{title}: " + "; ".join(parts))
    return out


def baseline_noise(v):
    """The no-agent runs' spread over rounds, (max - min) / median, per headline metric."""
    s = v["configs"].get("none")
    if s is None:
        return None
    return {m: (s[m]["max"] - s[m]["min"]) / s[m]["median"] for m in ("cpu", "p99", "max_rps")}


def markdown(summary):
    out = []
    for key, v in summary.items():
        n = baseline_noise(v)
        rate = f"{v['rate']:,} requests/s" if v["rate"] else "n/a"
        out.append(f"### {v['label']}; Java {v['java']}\n")
        rounds = f"{v['rounds']} round{'s' if v['rounds'] > 1 else ''}"
        noise = ("" if n is None else
                 f" Spread of the no-agent baseline over rounds (max-min over median): "
                 f"CPU/request {n['cpu'] * 100:.0f} %, p99 {n['p99'] * 100:.0f} %, max "
                 f"throughput {n['max_rps'] * 100:.0f} %.")
        out.append(f"Fixed rate {rate}; {rounds}.{noise}\n")
        for s in shares(v):
            out.append(f"* {s}")
        out.append("")
        out.append("Medians over rounds (min..max):\n")
        out.append(absolute_table(v) + "\n")
        out.append("Ratios paired per round: median [min..max] of the per-round ratios; `~`: "
                   "the range includes 1 (within noise).\n")
        out.append(ratio_table(v) + "\n")
    return "\n".join(out)


def plot(summary):
    groups = []
    for v in summary.values():
        bars = []
        for c, row in v["configs"].items():
            r = row.get("vs_none", {}).get("cpu")
            if c == "none":
                bars.append((c, 1.0, 1.0, 1.0))
            elif r is not None:
                bars.append((c, r["median"], r["min"], r["max"]))
        groups.append((v["label"], bars))
    return grouped_bars_svg(
        groups, CONFIG_ORDER,
        title="Service CPU per request relative to no agent (median of per-round ratios; "
              "whiskers: min-max)",
        xlabel="CPU per request / CPU per request without an agent (same round)")


def readme_block(summary, header):
    """One line per default-carrier variant for the README, newest JDK first, after the run's
    date and load (from the page's header)."""
    date = re.search(r"^date: (\S+)", header, re.M)
    load = re.search(r"^load average at start: (\S+)", header, re.M)
    lines = []
    if date and load:
        lines.append(f"Run of {date.group(1)[:10]}, load average {load.group(1)} at its start on "
                     f"2 vCPUs (what that does to the spreads: the page):\n")
    for key, v in summary.items():
        rows = v["configs"]
        own = rows.get("vtctx", {}).get("vs_empty_callbacks", {})
        jvm = rows.get("empty_callbacks", {}).get("vs_none", {})
        if key[1] != "default" or "cpu" not in own or "cpu" not in jvm:
            continue
        line = (f"* JDK {key[0]}, {rows['none']['cpu']['median']:.0f} us of CPU per request "
                f"without an agent: vtctx's own share (vtctx vs empty callbacks) "
                f"{said(rows, 'vtctx', 'empty_callbacks', 'cpu', 'CPU per request')}, "
                f"{said(rows, 'vtctx', 'empty_callbacks', 'p99', 'p99')}; the JVM's share "
                f"(empty callbacks vs none) "
                f"{said(rows, 'empty_callbacks', 'none', 'cpu', 'CPU per request')}")
        shim = said(rows, "vtctx_shim", "vtctx", "cpu", "CPU per request")
        lines.append(line + (f"; the shim {shim}." if shim else "."))
    return "\n".join(lines)


def replace_block(path, text):
    with open(path) as f:
        page = f.read()
    pattern = re.compile(re.escape(BEGIN) + ".*?" + re.escape(END), re.S)
    if not pattern.search(page):
        sys.exit(f"serviceResults: no {BEGIN} ... {END} block in {path}")
    with open(path, "w") as f:
        f.write(pattern.sub(lambda _: f"{BEGIN}\n{text}\n{END}", page))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("results_dir")
    p.add_argument("--md")
    p.add_argument("--svg")
    p.add_argument("--json")
    p.add_argument("--header", help="a markdown file put before the tables (machine, command)")
    p.add_argument("--publish-page")
    p.add_argument("--publish-readme")
    p.add_argument("--svg-link", default="service.svg", help="the plot's name in the page")
    args = p.parse_args()
    summary = summarize(load(args.results_dir))
    header = open(args.header).read() if args.header else ""
    start = re.search(r"^load average at start: (\S+)", header, re.M)
    if start and float(start.group(1)) > 4:
        header += (f"\nThe load average was {start.group(1)} at the start on 2 CPUs: other work "
                   f"shared the machine, and the spreads below include its effect.\n")
    body = (header + "\n" + markdown(summary) +
            f"\n![Service CPU per request relative to no agent]({args.svg_link})\n")
    print(body)
    if args.md:
        with open(args.md, "w") as f:
            f.write(body)
    if args.svg:
        with open(args.svg, "w") as f:
            f.write(plot(summary))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({f"{k[0]}/{k[1]}": v for k, v in summary.items()}, f, indent=1)
    if args.publish_page:
        replace_block(args.publish_page, body.strip())
    if args.publish_readme:
        replace_block(args.publish_readme, readme_block(summary, header))


if __name__ == "__main__":
    main()
