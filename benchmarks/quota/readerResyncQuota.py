#!/usr/bin/env python3
"""What reader_resync costs a service under a CPU quota (docs/results/agent.md, "Reader resync
under a CPU quota"). A JVM (QuotaLatencyProbe: a thread that wakes every 2 ms and measures how late)
runs in a cgroup limited to --quota CPUs; vtctx-reader attaches the agent with reader_resync=on or
off, then the probe measures --seconds (the resync bursts: 8 x 100 ms, 4 s apart, from the attach).
Per run: the cgroup's throttled periods during the measurement, wake-ups later than 10 ms, p99 and
max lateness. --rounds rounds, on and off alternating, a fresh JVM each; prints a Markdown table.

  readerResyncQuota.py --reader R --agent libvtctx.so --java J --javac JC [--quota 0.35]
                       [--seconds 30] [--rounds 3]
Needs root and the cgroup v1 cpu controller or cgroup v2 with cpu.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


class Cgroup:
    """A CPU-limited cgroup (v2 if mounted with cpu, else v1's cpu controller)."""

    def __init__(self, quota):
        name = f"vtctx-quota-{os.getpid()}"
        period = 100_000
        v2 = "/sys/fs/cgroup/cgroup.controllers"
        if os.path.exists(v2) and "cpu" in open(v2).read():
            self.dir = f"/sys/fs/cgroup/{name}"
            os.mkdir(self.dir)
            open(f"{self.dir}/cpu.max", "w").write(f"{int(quota * period)} {period}")
            self.procs = f"{self.dir}/cgroup.procs"
        else:
            self.dir = f"/sys/fs/cgroup/cpu/{name}"
            os.mkdir(self.dir)
            open(f"{self.dir}/cpu.cfs_period_us", "w").write(str(period))
            open(f"{self.dir}/cpu.cfs_quota_us", "w").write(str(int(quota * period)))
            self.procs = f"{self.dir}/cgroup.procs"

    def throttled(self):
        stat = dict(l.split() for l in open(f"{self.dir}/cpu.stat"))
        return int(stat["nr_throttled"])

    def remove(self):
        os.rmdir(self.dir)


def run(args, classes, cgroup, resync):
    jvm = subprocess.Popen(
        ["sh", "-c", f'echo $$ > {cgroup.procs}; exec "$@"', "sh", args.java, "-cp", classes,
         "QuotaLatencyProbe"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        pid = json.loads(jvm.stdout.readline())["pid"]
        # The JVM settles (its JIT and GC threads start) before the attach and the measurement.
        jvm.stdin.write("go 3\n")
        jvm.stdin.flush()
        jvm.stdout.readline()
        attach = subprocess.run([args.reader, "attach", "--pid", str(pid), "--options",
                                 f"reader_resync={'on' if resync else 'off'},log=error"],
                                capture_output=True, text=True, timeout=60)
        if attach.returncode != 0:
            sys.exit(f"attach failed: {attach.stderr}")
        before = cgroup.throttled()
        jvm.stdin.write(f"go {args.seconds}\n")
        jvm.stdin.flush()
        result = json.loads(jvm.stdout.readline())
        result["throttled"] = cgroup.throttled() - before
        return result
    finally:
        jvm.kill()
        jvm.wait()


def main():
    p = argparse.ArgumentParser()
    for name in ("reader", "agent", "java", "javac"):
        p.add_argument(f"--{name}", required=True)
    p.add_argument("--quota", type=float, default=0.35)
    p.add_argument("--seconds", type=int, default=30)
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args()
    classes = tempfile.mkdtemp(prefix="vtctx-quota-")
    subprocess.run([args.javac, "-d", classes, os.path.join(HERE, "QuotaLatencyProbe.java")],
                   check=True)
    cgroup = Cgroup(args.quota)
    results = {True: [], False: []}
    try:
        for r in range(args.rounds):
            for resync in ((True, False) if r % 2 == 0 else (False, True)):
                out = run(args, classes, cgroup, resync)
                results[resync].append(out)
                print(f"round {r + 1} reader_resync={'on' if resync else 'off'}: {out}",
                      file=sys.stderr, flush=True)
    finally:
        cgroup.remove()
        shutil.rmtree(classes, ignore_errors=True)
    print(f"| reader_resync | throttled periods in {args.seconds} s | wake-ups > 10 ms late | "
          "p99 late (ms) | max late (ms) |")
    print("|---|---|---|---|---|")
    for resync in (True, False):
        runs = results[resync]

        def span(key, fmt="{:.0f}"):
            values = [x[key] for x in runs]
            return (f"{fmt.format(statistics.median(values))} "
                    f"({fmt.format(min(values))}-{fmt.format(max(values))})")
        print(f"| {'on' if resync else 'off (default)'} | {span('throttled')} | "
              f"{span('late_10ms')} | {span('p99_ms', '{:.1f}')} | {span('max_ms', '{:.1f}')} |")


if __name__ == "__main__":
    main()
