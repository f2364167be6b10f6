#!/usr/bin/env python3
"""Runs the JMH virtual-thread workloads under every agent configuration, all on one JDK.

  run.py --java J --jar benchmarks.jar --shim-jar vtctx-shim.jar --agent libvtctx.so
         --empty-agent libvtctx_empty_agent.so --reader vtctx-reader --out DIR
         [--rounds 5] [--configs a,b,...] [--benchmarks REGEXP] [--smoke]

Each round runs every configuration once (one fork per benchmark), in a shuffled order, so that
configurations alternate in time on a shared machine; the summary takes medians over rounds.
Writes DIR/jmh-r<round>-<config>.json (JMH results), .log (JMH output) and reader-r<round>-
<config>.log (the reader's summary lines). Reader configurations need root (BPF); without it they
are skipped with a message, and summarize.py reports them as not run.
"""
import argparse
import os
import random
import subprocess
import sys
import time

BENCH_CLASS = "io.vtctx.bench.jmh.VirtualThreadBenchmarks"
# Secondary metrics: process CPU time per op, and mounts per op counted by vtctx.
PROFILERS = ["-prof", "io.vtctx.bench.jmh.CpuTimeProfiler",
             "-prof", "io.vtctx.bench.jmh.MountCountProfiler"]

# name -> (agent: none|empty|vtctx, agent options, shim writes, reader mode)
CONFIGS = {
    "none": ("none", "", False, ""),
    "capability": ("empty", "events=none", False, ""),
    "empty_callbacks": ("empty", "events=mount+end+thread", False, ""),
    "vtctx": ("vtctx", "log=error", False, ""),
    "vtctx_shim": ("vtctx", "log=error", True, ""),
    "vtctx_shim_profile": ("vtctx", "log=error", True, "profile"),
    "vtctx_shim_syscalls": ("vtctx", "log=error", True, "syscalls"),
    # Not in the default set: splits of the per-thread cost (--configs ...).
    # empty callbacks that also get JVMTI thread-local storage in Mount/End and set it at a
    # thread's first mount, as vtctx does (emptyAgent.cpp tls=set):
    "empty_callbacks_tls": ("empty", "events=mount+end+thread,tls=set", False, ""),
    # vtctx binding records only to threads that publish (none do here without the shim):
    "vtctx_bind_use": ("vtctx", "log=error,bind=use", False, ""),
    # channel=identity (no JVMTI environment): without the shim nothing publishes, so this is the
    # agent's fixed cost; with it, each publishing thread gets a record and an index entry:
    "identity": ("vtctx", "log=error,channel=identity", False, ""),
    "identity_shim": ("vtctx", "log=error,channel=identity", True, ""),
}
DEFAULT_CONFIGS = ["none", "capability", "empty_callbacks", "vtctx", "vtctx_shim",
                   "vtctx_shim_profile", "vtctx_shim_syscalls"]


def jvm_args(args, name, round_no):
    agent, options, shim, reader = CONFIGS[name]
    out = [f"-Dvtctx.bench.config={name}",
           f"-Dvtctx.bench.expectVtctx={str(agent == 'vtctx').lower()}",
           f"-Dvtctx.bench.shim={str(shim).lower()}"]
    if agent == "empty":
        out.append(f"-agentpath:{args.empty_agent}={options}")
    elif agent == "vtctx":
        out.append(f"-agentpath:{args.agent}={options}")
    if reader:
        reader_log = os.path.join(args.out, f"reader-r{round_no}-{name}.log")
        out += [f"-Dvtctx.bench.reader={reader}", f"-Dvtctx.bench.readerPath={args.reader}",
                f"-Dvtctx.bench.readerLog={reader_log}"]
    for a in out:
        if " " in a:
            sys.exit(f"run.py: paths with spaces cannot be passed through -jvmArgsAppend: {a}")
    return out


def main():
    p = argparse.ArgumentParser()
    for flag in ("java", "jar", "shim-jar", "agent", "empty-agent", "reader", "out"):
        p.add_argument(f"--{flag}", required=True)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--configs", default=",".join(DEFAULT_CONFIGS))
    p.add_argument("--benchmarks", default=BENCH_CLASS)
    p.add_argument("--smoke", action="store_true", help="one round, one short iteration per fork")
    args = p.parse_args()
    for flag in ("jar", "shim_jar", "agent", "empty_agent", "reader"):
        setattr(args, flag, os.path.abspath(getattr(args, flag)))
    os.makedirs(args.out, exist_ok=True)

    configs = args.configs.split(",")
    unknown = [c for c in configs if c not in CONFIGS]
    if unknown:
        sys.exit(f"run.py: unknown configuration(s) {unknown}; known: {list(CONFIGS)}")
    if os.geteuid() != 0:
        skipped = [c for c in configs if CONFIGS[c][3]]
        if skipped:
            print(f"run.py: not root, skipping reader configurations {skipped} (BPF needs root)",
                  file=sys.stderr)
        configs = [c for c in configs if not CONFIGS[c][3]]

    rounds = 1 if args.smoke else args.rounds
    iterations = (["-wi", "0", "-i", "1", "-r", "200ms"] if args.smoke else [])
    started = time.monotonic()
    for r in range(1, rounds + 1):
        order = configs[:]
        random.shuffle(order)
        for name in order:
            stem = os.path.join(args.out, f"jmh-r{r}-{name}")
            # A smoke run measures nothing, so another JMH run on the machine may go on meanwhile.
            lock = ["-Djmh.ignoreLock=true"] if args.smoke else []
            cmd = [args.java, *lock, "-cp", f"{args.jar}:{args.shim_jar}", "org.openjdk.jmh.Main",
                   args.benchmarks, "-f", "1", *iterations, *PROFILERS, "-rf", "json",
                   "-rff", stem + ".json", "-jvmArgsAppend", " ".join(jvm_args(args, name, r))]
            t0 = time.monotonic()
            with open(stem + ".log", "w") as log:
                log.write(" ".join(cmd) + "\n")
                log.flush()
                code = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT).returncode
            failed = code != 0 or "<failure>" in open(stem + ".log").read()
            print(f"round {r}/{rounds} {name}: {time.monotonic() - t0:.0f} s"
                  f"{' FAILED' if failed else ''} (total {time.monotonic() - started:.0f} s)",
                  file=sys.stderr)
            if failed:
                with open(stem + ".log") as log:
                    sys.stderr.write("".join(log.readlines()[-40:]))
                sys.exit(f"run.py: configuration {name} failed, see {stem}.log")


if __name__ == "__main__":
    main()
