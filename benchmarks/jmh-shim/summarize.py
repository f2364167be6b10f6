#!/usr/bin/env python3
"""Median over JMH result files (one fork each) of every benchmark/params score.

Usage: summarize.py round-1.json round-2.json ...
Prints one line per benchmark and parameter set: median, min and max of the per-fork scores.
"""
import json
import statistics
import sys
from collections import defaultdict

scores = defaultdict(list)
units = {}
for path in sys.argv[1:]:
    with open(path) as f:
        for result in json.load(f):
            name = result["benchmark"].rsplit(".", 2)[-2:]
            params = ",".join(f"{k}={v}" for k, v in sorted(result.get("params", {}).items()))
            key = (".".join(name), params)
            metric = result["primaryMetric"]
            # One fork per file: the fork's score is the mean of its measurement iterations.
            for fork in metric["rawData"]:
                scores[key].append(statistics.mean(fork))
            units[key] = metric["scoreUnit"]

width = max((len(k[0]) + len(k[1]) + 3 for k in scores), default=10)
print(f"{'benchmark':<{width}} {'median':>9} {'min':>9} {'max':>9}  forks unit")
for key in sorted(scores):
    s = scores[key]
    label = key[0] + (f" [{key[1]}]" if key[1] else "")
    print(f"{label:<{width}} {statistics.median(s):9.2f} {min(s):9.2f} {max(s):9.2f}  {len(s):5d} {units[key]}")
