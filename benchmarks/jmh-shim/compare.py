#!/usr/bin/env python3
"""Paired comparison of shim variants measured in the same rounds (pair.sh).

Usage: compare.py DIR_A DIR_B [DIR_C ...]   (each DIR holds round-N.json of one variant)
For every benchmark and parameter set measured by the first variant and another, prints the median
and range over rounds of the per-round ratio other/first (rounds pair forks minutes apart, so the
host's drift cancels). For ScopeBenchmark, which measures storage=plain next to vtctx in each
round, also prints each variant's extra cost per context change, (vtctx - plain) / 2, as the median
and range over rounds, and the per-round difference of the extras (other - first).
"""
import json
import os
import statistics
import sys
from collections import defaultdict


def load(directory):
    """{(benchmark, params): {round: score}}"""
    out = defaultdict(dict)
    for name in os.listdir(directory):
        if not (name.startswith("round-") and name.endswith(".json")):
            continue
        r = int(name[len("round-"):-len(".json")])
        with open(os.path.join(directory, name)) as f:
            for result in json.load(f):
                bench = ".".join(result["benchmark"].rsplit(".", 2)[-2:])
                params = tuple(sorted(result.get("params", {}).items()))
                out[(bench, params)][r] = result["primaryMetric"]["score"]
    return out


def label(bench, params):
    return bench + (" [" + ",".join(f"{k}={v}" for k, v in params) + "]" if params else "")


def spread(values):
    return f"{statistics.median(values):7.3f} [{min(values):.3f}..{max(values):.3f}]"


def extras(scores):
    """{(bench, params without storage): {round: extra per change}} for vtctx over plain."""
    out = defaultdict(dict)
    for (bench, params), by_round in scores.items():
        p = dict(params)
        if not bench.startswith("ScopeBenchmark.") or p.get("storage") != "vtctx":
            continue
        rest = tuple((k, v) for k, v in params if k != "storage")
        plain = scores.get((bench, tuple(sorted(dict(p, storage="plain").items()))), {})
        for r, score in by_round.items():
            if r in plain:
                out[(bench, rest)][r] = (score - plain[r]) / 2
    return out


def main():
    dirs = sys.argv[1:]
    names = [os.path.basename(d.rstrip("/")) for d in dirs]
    runs = [load(d) for d in dirs]
    base = runs[0]
    for name, run in zip(names[1:], runs[1:]):
        print(f"\n{name} / {names[0]}, per-round ratio of scores (median [min..max], rounds):")
        for key in sorted(base):
            rounds = sorted(set(base[key]) & set(run.get(key, {})))
            if rounds:
                ratios = [run[key][r] / base[key][r] for r in rounds]
                print(f"  {label(*key):<70} {spread(ratios)}  {len(rounds)}")
    base_extra = extras(base)
    if not base_extra:
        return
    print("\nScopeBenchmark extra per context change over plain, ns (median [min..max] over rounds):")
    for key in sorted(base_extra):
        line = f"  {label(*key):<55} {names[0]} {spread(list(base_extra[key].values()))}"
        for name, run in zip(names[1:], runs[1:]):
            other = extras(run).get(key, {})
            rounds = sorted(set(other) & set(base_extra[key]))
            if rounds:
                diff = [other[r] - base_extra[key][r] for r in rounds]
                line += f" | {name} {spread([other[r] for r in rounds])} diff {spread(diff)}"
        print(line)


if __name__ == "__main__":
    main()
