#!/usr/bin/env python3
"""The service's cost per request, modelled: events per request (counted by the agent in the
service benchmark) x CPU per event (measured on one carrier by benchmarks/e2e/agentOverhead.sh),
divided by the service's CPU per request without an agent.

  costModel.py --service DIR --e2e LABEL=RESULTS.md [--e2e ...] [--reference LABEL=US ...]

DIR: measureService.py's output (runs.jsonl) with the configurations none, vtctx_shim and
identity_shim (and empty_callbacks for the JVM's share). RESULTS.md: agentOverhead.sh --out of a
run with the configurations empty_same_events, vtctx and identity and the workloads churn,
pingpong and publish_churn; LABEL is the service run's JDK label (e.g. 25, 21). --reference: a
CPU per request without an agent from another run (e.g. a quieter one), for a second share.

Per request: mounts (each one unmount + mount: priced as a ping-pong hand-off, a park and an
unpark) and virtual threads (VirtualThreadEnd), both from vtctx_shim's counters; threads that
published (records_indexed: a thread's first publish) from each configuration's own counters.
The shim's span writes cost the same in both channels and are not in the model.
"""
import argparse
import json
import os
import re
import statistics

# service configuration -> (agentOverhead.sh configuration that pays the same per event, label)
MODELLED = {
    "empty_callbacks": ("empty_same_events",
                        "empty callbacks (the JVM's share of any JVMTI agent)"),
    "vtctx_shim": ("vtctx", "vtctx + shim, `channel=carrier`"),
    "identity_shim": ("identity", "vtctx + shim, `channel=identity`"),
}
COLUMNS = {"hand-off": "per hand-off", "thread": "per thread (start + end)",
           "publishing": "of which beyond a thread that does not publish"}


def per_event_costs(path):
    """{configuration: {hand-off|thread|publishing: median ns}} from agentOverhead.sh's table."""
    header, costs = None, {}
    for line in open(path):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| configuration |"):
            header = cells
            continue
        if header is None or not line.startswith("| ") or cells[0].startswith("---"):
            continue
        row = {}
        for key, title in COLUMNS.items():
            col = next((i for i, h in enumerate(header) if h.startswith(title)), None)
            if col is not None:
                row[key] = float(re.match(r"(-?[0-9.]+)", cells[col]).group(1))
        costs[cells[0]] = row
    return costs


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--service", required=True)
    p.add_argument("--e2e", action="append", required=True, metavar="LABEL=RESULTS.md")
    p.add_argument("--reference", action="append", default=[], metavar="LABEL=US")
    args = p.parse_args()
    reference = {label: float(us) for label, us in (r.split("=", 1) for r in args.reference)}
    runs = [json.loads(l) for l in open(os.path.join(args.service, "runs.jsonl")) if l.strip()]
    print("| JDK | configuration | mounts / virtual threads / publishing threads per request "
          "(counted) | CPU per hand-off / thread / publishing thread, ns (measured) | modelled "
          "CPU per request, us | service CPU per request without an agent, us | modelled "
          "share | modelled share of the reference CPU per request |")
    print("|---|---|---|---|---|---|---|---|")
    for spec in args.e2e:
        label, path = spec.split("=", 1)
        costs = per_event_costs(path)
        mine = [r for r in runs if r["jdk"] == label]
        med = lambda config, key: statistics.median(  # noqa: E731
            r[key] for r in mine if r["config"] == config and key in r)
        mounts = med("vtctx_shim", "mounts_per_request")
        vthreads = med("vtctx_shim", "vthreads_per_request")
        cpu_none = statistics.median(r["fixed"]["cpu_us_per_request"] for r in mine
                                     if r["config"] == "none")
        for config, (e2e_config, name) in MODELLED.items():
            if not any(r["config"] == config for r in mine) or e2e_config not in costs:
                continue
            c = costs[e2e_config]
            publishing = (med(config, "publishing_threads_per_request")
                          if config != "empty_callbacks" else 0.0)
            ns = mounts * c["hand-off"] + vthreads * c["thread"] + publishing * c["publishing"]
            print(f"| {label} | {name} | {mounts:.2f} / {vthreads:.2f} / {publishing:.3f} | "
                  f"{c['hand-off']:.0f} / {c['thread']:.0f} / {c['publishing']:.0f} | "
                  f"{ns / 1000:.2f} | {cpu_none:.0f} | {ns / 1000 / cpu_none * 100:.2f} % | "
                  + (f"{ns / 1000 / reference[label] * 100:.2f} % of {reference[label]:.0f} us |"
                     if label in reference else " |"))


if __name__ == "__main__":
    main()
