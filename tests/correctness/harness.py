#!/usr/bin/env python3
"""The correctness harness driver (run.sh calls it): runs the scenarios, grades every marker on
both planes, prints per-run lines, a table per scenario and plane, and ends with ONE line

  RESULT OK|FAIL markers=N runs=R content_correct=... identity_lost=... ...

OK only if every marker is correct on both planes (late attach's "before" markers: never
misattributed, never lost), nothing was dropped, and no run failed.
"""
import argparse
import json
import os
import platform
import re
import shutil
import sys
import traceback
from collections import Counter

import events as events_mod
import manifest as manifest_mod
from naive import movement, naive_grades
from reconcile import CLASSES, PLANES, grade_run
from scenarios import SCENARIOS
from session import HarnessError, ProcessError, Tools, run_once


class ScenarioTotals:
    def __init__(self, scenario):
        self.scenario = scenario
        self.runs = 0
        self.counts = {(phase, plane): Counter() for phase in ("after", "before")
                       for plane in PLANES}
        self.naive = Counter()
        self.moved = 0
        self.markers_with_events = 0
        self.max_tids = 0
        self.senders = 0
        self.distinct_records = 0
        self.mounts = 0
        self.dropped = 0
        self.failures = []
        self.seconds = 0.0
        self.publish_start_s = []  # per run: first publish through the agent after the attach


def run_is_clean(grades):
    for plane in PLANES:
        after = grades.counts[("after", plane)]
        if sum(after.values()) != after["correct"]:
            return False
        before = grades.counts[("before", plane)]
        if before["misattributed"] or before["lost"]:
            return False
    return True


def grade_one(totals, files):
    """Grades one finished run into totals; returns a list of failure reasons."""
    reasons = []
    manifest = manifest_mod.load(files.manifest)
    marker_events = events_mod.load(files.events, manifest.header)
    grades, problems, seen = grade_run(manifest, marker_events)
    reasons += problems
    naive = naive_grades(manifest, marker_events)
    moved, tids = movement(manifest, seen)
    summary = files.reader_summary
    dropped = int(summary.get("dropped", "-1"))
    if dropped != 0:
        reasons.append(f"the reader dropped {dropped} events (ring buffer full): markers may be "
                       f"lost, the run proves nothing")
    if "undelivered" in summary:
        reasons.append(f"the reader did not deliver {summary['undelivered']} events")
    sets_missing = sum(1 for m, marker in enumerate(manifest.markers)
                       if marker.phase == "after" and (events_mod.SET, m) not in seen)
    if sets_missing:
        reasons.append(f"{sets_missing} SET announcements lost (the naive baseline is incomplete)")
    if files.stats.get("status") != "active":
        reasons.append(f"agent stats say status={files.stats.get('status')} (expected active)")
    if files.stats.get("records_unavailable", 0):
        reasons.append(f"the agent had no record for {files.stats['records_unavailable']} threads")
    if not run_is_clean(grades):
        reasons += grades.examples or ["markers not correct"]
    start = None
    if totals.scenario.publish_start_bound_s:
        start = publish_start_seconds(manifest.header, files.stats)
        bound = totals.scenario.publish_start_bound_s
        if start is None:
            reasons.append("no publish found the agent before GO: publishing never started")
        elif start > bound:
            reasons.append(f"publishing started {start:.3f} s after the attach (bound {bound} s)")
    records = {s.record for s in manifest.senders}

    totals.runs += 1
    for key, counter in grades.counts.items():
        totals.counts[key].update(counter)
    totals.naive.update(naive)
    totals.moved += moved
    totals.max_tids = max(totals.max_tids, tids)
    totals.senders = len(manifest.senders)
    totals.distinct_records = max(totals.distinct_records, len(records))
    totals.mounts += int(files.stats.get("mounts", 0))
    totals.dropped += max(dropped, 0)
    totals.seconds += files.seconds
    if start is not None:
        totals.publish_start_s.append(start)
    if totals.scenario.require_reuse and len(records) >= len(manifest.senders):
        reasons.append(f"{len(manifest.senders)} senders used {len(records)} distinct records: "
                       f"no record reuse, the churn scenario tested nothing")
    if totals.scenario.distinct_records and len(records) != len(manifest.senders):
        reasons.append(f"{len(manifest.senders)} senders alive at once share records "
                       f"({len(records)} distinct): a record must belong to one live thread")
    after_c = grades.counts[("after", "content")]
    after_i = grades.counts[("after", "identity")]
    line = (f"  run {totals.runs}: {sum(after_c.values())} markers, content "
            f"{fmt(after_c)}, identity {fmt(after_i)}")
    before = grades.counts[("before", "content")]
    if sum(before.values()):
        line += (f"; before-attach content {fmt(before)}, identity "
                 f"{fmt(grades.counts[('before', 'identity')])}")
    if start is not None:
        line += f"; publishing started {start * 1000:.1f} ms after the attach"
    line += (f"; naive {fmt(naive)}; {tids} OS threads, {moved} markers moved off their "
             f"publish's OS thread; {len(records)} records for {len(manifest.senders)} senders; "
             f"{files.stats.get('mounts', '?')} mounts; reader events={summary.get('events')} "
             f"dropped={dropped}; {files.seconds:.1f} s")
    print(line, flush=True)
    return reasons


def publish_start_seconds(header, stats):
    """Seconds from the agent's activation (the end of Agent_OnAttach, in its stats) to the first
    publish through it, both CLOCK_MONOTONIC; None if no publish found the agent."""
    first = int(header.get("first_active_ns", -1))
    activated = int(stats.get("activated_monotonic_ns", 0))
    if first < 0 or not activated:
        return None
    return (first - activated) / 1e9


def fmt(counter):
    parts = [f"{counter[k]} {k}" for k in CLASSES if counter.get(k)]
    return ", ".join(parts) if parts else "none"


def print_tables(all_totals):
    print()
    print("| scenario | runs | markers | plane | correct | unmapped | invalid | misattributed "
          "| lost |")
    print("|---|---:|---:|---|---:|---:|---:|---:|---:|")
    for t in all_totals:
        for phase in ("after", "before"):
            for plane in PLANES:
                c = t.counts[(phase, plane)]
                n = sum(c.values())
                if n == 0:
                    continue
                name = t.scenario.name + (" (before attach)" if phase == "before" else "")
                cells = " | ".join(str(c[k]) for k in CLASSES)
                print(f"| {name} | {t.runs} | {n} | {plane} | {cells} |")
    print()
    print("| scenario | markers | naive (tid-keyed) correct | unmapped | misattributed | rate | "
          "moved markers | OS threads (max/run) | records/senders (max/run) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for t in all_totals:
        n = sum(t.naive.values())
        rate = 100.0 * t.naive["misattributed"] / n if n else 0.0
        print(f"| {t.scenario.name} | {n} | {t.naive['correct']} | {t.naive['unmapped']} | "
              f"{t.naive['misattributed']} | {rate:.1f}% | {t.moved} | {t.max_tids} | "
              f"{t.distinct_records}/{t.senders} |")
    print()


def result_line(all_totals, failed_runs, ok):
    after = {plane: Counter() for plane in PLANES}
    before = {plane: Counter() for plane in PLANES}
    naive = Counter()
    for t in all_totals:
        for plane in PLANES:
            after[plane].update(t.counts[("after", plane)])
            before[plane].update(t.counts[("before", plane)])
        naive.update(t.naive)
    words = [f"RESULT {'OK' if ok else 'FAIL'}",
             f"markers={sum(after['content'].values())}",
             f"runs={sum(t.runs for t in all_totals)}", f"failed_runs={failed_runs}"]
    for plane in PLANES:
        words += [f"{plane}_{k}={after[plane][k]}" for k in CLASSES]
    words.append(f"before_attach={sum(before['content'].values())}")
    for plane in PLANES:
        words += [f"before_attach_{plane}_{k}={before[plane][k]}" for k in CLASSES]
    words.append(f"dropped={sum(t.dropped for t in all_totals)}")
    n = sum(naive.values())
    words.append(f"naive_misattributed={naive['misattributed']}/{n}")
    return " ".join(words)


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--java", required=True)
    p.add_argument("--jcmd", required=True)
    p.add_argument("--agent", required=True)
    p.add_argument("--reader", required=True)
    p.add_argument("--classpath", required=True)
    p.add_argument("--java21", default="", help="Java 21 runtime's java (java21 scenarios)")
    p.add_argument("--jcmd21", default="", help="Java 21 runtime's jcmd")
    p.add_argument("--work", required=True, help="directory for per-run files")
    p.add_argument("--quick", action="store_true", help="the CI subset")
    p.add_argument("--fault", default="", help="agent test fault, e.g. stale-carrier")
    p.add_argument("--only", default="", help="regex: run only the scenarios it matches")
    p.add_argument("--runs", type=int, default=0, help="override the number of runs")
    p.add_argument("--keep", action="store_true", help="keep the event files of passing runs")
    p.add_argument("--json", default="", help="write the per-scenario totals here")
    p.add_argument("--timeout", type=int, default=900, help="per-run budget of the JVM, s")
    args = p.parse_args()

    tools = Tools(args.java, args.jcmd, args.agent, args.reader, args.classpath, args.java21,
                  args.jcmd21)
    agent_extra = [f"fault={args.fault}"] if args.fault else []
    print(f"correctness harness: {'quick' if args.quick else 'full'} run"
          f"{', agent fault=' + args.fault if args.fault else ''}; {platform.node()}, "
          f"Linux {platform.release()}, {os.cpu_count()} CPUs", flush=True)
    shutil.rmtree(args.work, ignore_errors=True)

    all_totals, failures, failed_runs = [], [], 0
    for scenario in SCENARIOS:
        runs = scenario.quick_runs if args.quick else scenario.runs
        if args.runs:
            runs = min(runs, args.runs) if runs else 0
        if runs == 0 or (args.only and not re.search(args.only, scenario.name)):
            continue
        totals = ScenarioTotals(scenario)
        all_totals.append(totals)
        print(f"{scenario.name}: {scenario.what} ({runs} runs)", flush=True)
        for run_no in range(1, runs + 1):
            work = os.path.join(args.work, f"{scenario.name}-{run_no}")
            try:
                files = run_once(tools, scenario, scenario.arguments(args.quick), run_no, work,
                                 agent_extra, args.timeout)
                reasons = grade_one(totals, files)
            except (HarnessError, ProcessError, ValueError, OSError) as e:
                reasons = [f"run could not be completed: {e}"]
                print(f"  run {run_no}: FAILED: {e}", flush=True)
            except Exception as e:  # a harness bug: still one FAIL line at the end
                traceback.print_exc()
                reasons = [f"run could not be graded: {e!r}"]
            if reasons:
                failed_runs += 1
                failures += [f"{scenario.name} run {run_no}: {r}" for r in reasons]
            elif not args.keep:
                os.remove(os.path.join(work, "events.jsonl"))
        if scenario.require_moved and totals.runs and totals.moved == 0:
            failures.append(f"{scenario.name}: no marker ever ran on another OS thread than its "
                            f"publish: the scenario did not exercise remounts")

    print_tables(all_totals)
    if args.json:
        with open(args.json, "w") as f:
            json.dump([{"scenario": t.scenario.name, "runs": t.runs,
                        "counts": {f"{ph}/{pl}": dict(c) for (ph, pl), c in t.counts.items()},
                        "naive": dict(t.naive), "moved": t.moved, "max_os_threads": t.max_tids,
                        "records": t.distinct_records, "senders": t.senders,
                        "mounts": t.mounts, "seconds": round(t.seconds, 1),
                        "publish_start_s": [round(x, 4) for x in t.publish_start_s]}
                       for t in all_totals], f, indent=1)
    for reason in failures[:40]:
        print(f"FAILURE: {reason}")
    if len(failures) > 40:
        print(f"FAILURE: ... and {len(failures) - 40} more")
    ok = not failures and bool(all_totals)
    print(result_line(all_totals, failed_runs, ok), flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
