#!/usr/bin/env python3
"""Where an agent's per-virtual-thread cost goes: the churn workload (start+join of virtual
threads with empty bodies, one carrier) or publish_churn (each thread also publishes one context
through the shim) under `perf record -e cpu-clock -g`, every sample put in one bucket by its call
chain, each bucket turned into nanoseconds of CPU per virtual thread.

  churnBreakdown.py --java JAVA --classes build/benchmarks/e2e-classes --out DIR
                    --agent NAME=/abs/libvtctx.so[=OPTIONS] [--agent ...]
                    [--workload churn|publish_churn]
                    [--threads 100000] [--warmup 5] [--iterations 40]

Buckets (first match): JVMTI SetThreadLocalStorage (anything under
jvmti_SetThreadLocalStorage), JVMTI GetThreadLocalStorage (its entry, its body, and the
__tls_get_addr it calls: the entry has no frame pointer, so that call appears to come straight
from the agent), the agent's own code (samples whose leaf is in the agent library), the TLSDESC
resolver (_dl_tlsdesc_return: the agent's thread_local accesses). Per thread = samples / rate /
(threads x (warmup + iterations)). With --workload publish_churn, before those, what a thread's
first publish and its record's return cost: the thread id through JNI (anything under
CurrentJavaThreadIdentity), the thread index's enter and remove, the shim-caller check (JVMTI
GetFrameLocation in the carrier channel, StackWalker.getCallerClass without JVMTI), the record's
Java view (a direct ByteBuffer and its weak reference), the maintenance thread's sweep of
collected views, the rest under the natives' CallingThreadRecord, and the GC threads (by thread
name). Needs perf (linux-perf) and permission to use it.
"""
import argparse
import os
import re
import subprocess
import sys

RATE = 4999
BUCKETS = ["JVMTI SetThreadLocalStorage", "JVMTI GetThreadLocalStorage", "agent's own code",
           "TLSDESC resolver"]
# publish_churn: (bucket, symbols any frame of the sample starts with), in order.
PUBLISH_BUCKETS = [
    ("thread id through JNI", ("vtctx::CurrentJavaThreadIdentity",)),
    ("thread index enter, remove", ("vtctx::ThreadIndexWriter::", "vtctx::IndexThreadRecord",
                                    "vtctx::UnindexThreadRecordSlow")),
    ("shim-caller check", ("vtctx::CalledByShim", "vtctx::(anonymous namespace)::JvmtiCaller",
                           "vtctx::(anonymous namespace)::StackWalkerCaller",
                           "vtctx::(anonymous namespace)::SignatureOf", "jvmti_GetFrameLocation",
                           "StackWalk::")),
    ("record view", ("vtctx::RecordView", "vtctx::LiveRecordView", "jni_NewDirectByteBuffer")),
    ("sweep of collected views", ("vtctx::SweepRecordViews",)),
    ("other first-publish natives", ("vtctx::CallingThreadRecord", "vtctx::IdentityCallingRecord")),
]
GC_BUCKET = "GC threads"
GET_SYMS = ("jvmti_GetThreadLocalStorage", "JvmtiEnv::GetThreadLocalStorage")


def classify(frames, agent_dso, thread=None, publish=False):
    """frames: [(symbol, dso)] leaf first; thread: the sampled thread's name."""
    if publish:
        for bucket, syms in PUBLISH_BUCKETS:
            if any(sym.startswith(syms) for sym, _ in frames):
                return bucket
    if any(sym.startswith("jvmti_SetThreadLocalStorage") for sym, _ in frames):
        return BUCKETS[0]
    leaf, leaf_dso = frames[0]
    if leaf.startswith(GET_SYMS):
        return BUCKETS[1]
    if leaf.startswith("__tls_get_addr") and len(frames) > 1 and (
            frames[1][1] == agent_dso or frames[1][0].startswith(GET_SYMS)):
        return BUCKETS[1]
    if leaf_dso == agent_dso:
        return BUCKETS[2]
    if leaf.startswith("_dl_tlsdesc_return"):
        return BUCKETS[3]
    if publish and thread is not None and thread.startswith("GC Thread"):
        return GC_BUCKET
    return None


def samples(data):
    """Yields each sample's thread name and call chain, leaf first, as [(symbol, dso basename)]."""
    out = subprocess.run(["perf", "script", "-i", data, "-F", "comm,ip,sym,dso"],
                         capture_output=True, text=True, check=True).stdout
    chain, thread = [], None
    for line in out.splitlines() + [""]:
        m = re.match(r"\s*[0-9a-f]+ (.*) \((.*)\)$", line)
        if m:
            chain.append((m.group(1), os.path.basename(m.group(2))))
            continue
        if chain:
            yield thread, chain
            chain = []
        if line.strip():
            thread = line.strip()


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--java", required=True)
    p.add_argument("--classes", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--agent", action="append", required=True, metavar="NAME=PATH[=OPTIONS]")
    p.add_argument("--workload", choices=("churn", "publish_churn"), default="churn")
    p.add_argument("--threads", type=int, default=100000)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--iterations", type=int, default=40)
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    threads = args.threads * (args.warmup + args.iterations)
    publish = args.workload == "publish_churn"
    buckets = ([b for b, _ in PUBLISH_BUCKETS] if publish else []) + BUCKETS + (
        [GC_BUCKET] if publish else [])
    rows = []
    for spec in args.agent:
        name, path, *options = spec.split("=", 2)
        flag = f"-agentpath:{path}" + (f"={options[0]}" if options else "")
        data = os.path.join(args.out, f"{name}.data")
        run = subprocess.run(
            ["perf", "record", "-q", "-e", "cpu-clock", "-F", str(RATE), "-g", "-o", data, "--",
             args.java, flag, "-Xms512m", "-Xmx512m", "-XX:+UseParallelGC",
             "-Djdk.virtualThreadScheduler.parallelism=1",
             "-Djdk.virtualThreadScheduler.maxPoolSize=1", "-cp", args.classes,
             "io.vtctx.bench.Transitions", args.workload, str(args.threads), str(args.warmup),
             str(args.iterations)], capture_output=True, text=True)
        result = next((l for l in run.stdout.splitlines() if l.startswith("result")), None)
        if run.returncode != 0 or result is None:
            sys.exit(f"churnBreakdown: {name} failed: {run.stderr[-400:]}")
        cpu_ms = float(re.search(r"cpu_median_ms=([0-9.]+)", result).group(1))
        counts = dict.fromkeys(buckets, 0)
        agent_dso = os.path.basename(path)
        for thread, chain in samples(data):
            bucket = classify(chain, agent_dso, thread, publish)
            if bucket:
                counts[bucket] += 1
        ns = {b: counts[b] / RATE / threads * 1e9 for b in buckets}
        rows.append((name, cpu_ms * 1e6 / args.threads, ns, counts))
    print(f"{args.workload}: {args.threads:,} virtual threads x {args.warmup} + {args.iterations} "
          f"iterations, one carrier; perf cpu-clock at {RATE} Hz with call graphs.\n")
    print("| agent | CPU per thread, ns (median iteration) | " +
          " | ".join(f"{b}, ns/thread (samples)" for b in buckets) + " | sum of buckets, ns |")
    print("|---" * (len(buckets) + 3) + "|")
    for name, per_thread, ns, counts in rows:
        print(f"| {name} | {per_thread:,.0f} | " +
              " | ".join(f"{ns[b]:.1f} ({counts[b]:,})" for b in buckets) +
              f" | {sum(ns.values()):.1f} |")


if __name__ == "__main__":
    main()
