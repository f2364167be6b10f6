#!/usr/bin/env python3
"""Median over JMH result files (one fork each) of every benchmark/params score.

Usage: summarize.py round-1.json round-2.json ...
Prints one line per benchmark and parameter set: median, min and max of the per-fork scores.
When the rounds ran both storage=plain and another storage, it also prints each other storage's
extra cost over plain, paired within each round (the two forks ran minutes apart, not hours), as
the median over rounds of (storage - plain), per operation and, for ScopeBenchmark, per context
change (each of its operations is two changes: makeCurrent and close).
"""
import json
import statistics
import sys
from collections import defaultdict

scores = defaultdict(list)
units = {}
per_round = defaultdict(dict)  # (benchmark, params without storage) -> {(round, storage): score}
for round_index, path in enumerate(sys.argv[1:]):
    with open(path) as f:
        for result in json.load(f):
            name = result["benchmark"].rsplit(".", 2)[-2:]
            params = result.get("params", {})
            label = ",".join(f"{k}={v}" for k, v in sorted(params.items()))
            key = (".".join(name), label)
            metric = result["primaryMetric"]
            # One fork per file: the fork's score is the mean of its measurement iterations.
            for fork in metric["rawData"]:
                scores[key].append(statistics.mean(fork))
            units[key] = metric["scoreUnit"]
            if "storage" in params:
                rest = ",".join(f"{k}={v}" for k, v in sorted(params.items()) if k != "storage")
                per_round[(".".join(name), rest)][(round_index, params["storage"])] = metric["score"]

width = max((len(k[0]) + len(k[1]) + 3 for k in scores), default=10)
print(f"{'benchmark':<{width}} {'median':>9} {'min':>9} {'max':>9}  forks unit")
for key in sorted(scores):
    s = scores[key]
    label = key[0] + (f" [{key[1]}]" if key[1] else "")
    print(f"{label:<{width}} {statistics.median(s):9.2f} {min(s):9.2f} {max(s):9.2f}  {len(s):5d} {units[key]}")

paired = []
for (bench, rest), by_round in sorted(per_round.items()):
    storages = sorted({s for (_, s) in by_round if s != "plain"})
    for storage in storages:
        extra = [
            by_round[(r, storage)] - by_round[(r, "plain")]
            for (r, s) in sorted(by_round)
            if s == storage and (r, "plain") in by_round
        ]
        if extra:
            paired.append((bench, rest, storage, extra))
if paired:
    print()
    print("extra over plain, paired per round (median [min..max] over rounds):")
    for bench, rest, storage, extra in paired:
        label = f"{bench} [{rest + ',' if rest else ''}storage={storage}]"
        m = statistics.median(extra)
        change = f"  per change {m / 2:6.2f}" if bench.startswith("ScopeBenchmark.") else ""
        print(f"  {label:<{width}} per operation {m:7.2f} [{min(extra):.2f}..{max(extra):.2f}]"
              f"{change}  rounds {len(extra)}")
