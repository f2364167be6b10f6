#!/usr/bin/env python3
"""vtctx-reader's Java stacks against async-profiler's, on the same JVM at the same time.

One JVM runs the workloads of tests/reader/jvm/StackWorkloads.java one after the other (deep
inlined chain, megamorphic call site, lambdas and streams, a sort through a comparator chain, a
JNI call, recursion, virtual threads that park and resume on other carriers). For each,
async-profiler (its library loaded through the attach socket with jattach, `event=cpu`) and
`vtctx-reader profile --format folded` sample the same window. Both profiles are folded to
root-to-leaf Java method sequences, from the workload's loop (StackWorkloads.run) down, native and
kernel frames left out but for the "native" workload's own C functions (vtctx_burn_*, built
without frame pointers: --stack-natives):
  - async-profiler: the samples of carrier threads (ForkJoinPool-*) with a mounted virtual thread
    (frames of the entered continuation, not its mount transition: mounted());
  - vtctx-reader: the samples under a workload's context (each of its virtual threads publishes
    one), whatever the stack: a stack the reader could not walk counts as a different sequence;
    but for the samples in async-profiler's own signal handler (its PerfEvents, Profiler,
    StackWalker and CallTraceStorage frames), which it runs on the workload's threads and never
    samples itself: the reference's own cost, not the workload's.
The test requires, for each workload, that the two distributions overlap by at least --min-overlap
(sum over sequences of the smaller share; 1.0 = the same distribution): the same methods for the
same share of the CPU, not sample by sample.

  asyncProfilerCompareTest.py --reader R --java J --agent libvtctx.so --classes DIR
      --async-profiler libasyncProfiler.so [--frame-pointers on|off] [--xint] [--workloads W,...]
      [--stack-natives libvtctx_stack_natives.so]   (needed by the "native" workload)
      [--keep DIR]
"""
import collections
import os
import re
import subprocess
import tempfile

from vtctxtest import JvmTarget, StreamingReader, check, require_root, required_args_parser

WORKLOADS = "inlined,megamorphic,streams,comparator,jni,native,recursion,parking"
# Workloads that run FACTOR times the warmup and the window (StackWorkloads' NAME*FACTOR): the
# comparator's sequences are many (~40: merges and binary sorts, each with the lambda chain at one
# of several depths), and two samplings of such a distribution overlap by a median 0.93 at ~900
# samples (a loaded machine's 3 s), 0.96 at ~2,700; TimSort's compilations also take longer to
# settle than the other workloads'.
LONGER = {"comparator": 2}
ROOT = "StackWorkloads.run"
CONTEXT = re.compile(r"^trace_776f726b6c6f6164([0-9a-f]{16});span_[0-9a-f]{16}$")
# A Java frame as the JVM's perf map names it (vtctx-reader): "void pkg.Class.method(args)".
VTCTX_JAVA = re.compile(r"^(?:[\w.$\[\]/<>]+ )?([\w.$/]+)\.([\w$<>]+)\(.*\)$")
# A Java frame as async-profiler names it: "pkg/Class.method".
AP_JAVA = re.compile(r"^([\w/$]+(?:\.0x[0-9a-f]+)?)\.([\w$<>]+)$")
HIDDEN_CLASS = re.compile(r"(\$\$Lambda)[./]0x[0-9a-f]+")
# async-profiler's own frames (its signal handler sampling a workload thread).
AP_OWN = re.compile(r"^(PerfEvents|Profiler|StackWalker|CallTraceStorage)::")
# HotSpot's continuation stubs as async-profiler names them, which JDK versions name differently:
# the return barrier of a thawed continuation (Java 21 "Cont thaw return barrier", JDK 25
# "cont_returnBarrier", JDK 27 "cont_returnBarrier_stub (stub gen)"); the thaw that mounts
# ("Cont thaw", "cont_thaw", "thaw_stub (stub gen)") and the freeze that unmounts.
RETURN_BARRIER = re.compile(r"^(Cont thaw return barrier|cont_returnBarrier)")
MOUNT_TRANSITION = re.compile(r"^(Cont thaw$|cont_thaw|thaw_stub|(int |freeze_result )?freeze<)")
# The "native" workload's C functions: both profilers name them by their symbols.
NATIVE_BURN = re.compile(r"^vtctx_burn_\w+$")


def java_name(frame, pattern):
    if NATIVE_BURN.match(frame):
        return frame
    if "::" in frame or frame.startswith("["):
        return None
    m = pattern.match(frame)
    if not m:
        return None
    cls = HIDDEN_CLASS.sub(r"\1", m.group(1)).replace("/", ".")
    return f"{cls}.{m.group(2)}"


def sequence(frames, pattern):
    """The Java methods from the workload's loop to the leaf, each run of one method (direct
    recursion) as one; () when the loop is not there. Recursion depth is left out: with a few
    hundred samples over 20 depths, two profilers' shares of each depth differ by sampling noise
    alone."""
    names = [n for n in (java_name(f, pattern) for f in frames) if n]
    if ROOT not in names:
        return ()
    names = names[names.index(ROOT):]
    return tuple(n for i, n in enumerate(names) if i == 0 or names[i - 1] != n)


def folded_lines(text):
    for line in text.splitlines():
        stack, _, count = line.rpartition(" ")
        if stack and count.isdigit():
            yield stack.split(";"), int(count)


def vtctx_distribution(folded, workload_index):
    dist = collections.Counter()
    for frames, count in folded_lines(folded):
        m = CONTEXT.match(";".join(frames[:2]))
        if m and int(m.group(1), 16) == workload_index and not any(AP_OWN.match(f) for f in frames):
            dist[sequence(frames[2:], VTCTX_JAVA)] += count
    return dist


def mounted(frames):
    """Whether async-profiler's stack is a mounted virtual thread's, as the JVM itself says: frames
    of the entered continuation (above Continuation.enterSpecial, or above the return barrier of a
    thawed continuation, where async-profiler's walk ends: "cont_returnBarrier;StackWorkloads.run;
    ..."), and not the mount transition around them: Continuation.run before it enters, the thaw
    that mounts and the freeze that unmounts (RETURN_BARRIER, MOUNT_TRANSITION). The JDK runs
    the transition with the carrier as the current thread (VirtualThread.unmount before
    Continuation.yield's freeze, VirtualThread.mount after the thaw), so its CPU is the carrier's,
    in vtctx-reader's samples as in the JVM's own view."""
    if any(MOUNT_TRANSITION.match(f) for f in frames):
        return False
    return ("jdk/internal/vm/Continuation.enterSpecial" in frames
            or any(RETURN_BARRIER.match(f) for f in frames))


def ap_distribution(collapsed):
    dist = collections.Counter()
    for frames, count in folded_lines(collapsed):
        if not frames[0].startswith("[ForkJoinPool-"):
            continue
        if not mounted(frames):
            continue
        dist[sequence(frames[1:], AP_JAVA)] += count
    return dist


def overlap(a, b):
    ta, tb = sum(a.values()), sum(b.values())
    if not ta or not tb:
        return 0.0
    return sum(min(a[k] / ta, b[k] / tb) for k in set(a) | set(b))


def largest_differences(a, b, n=4):
    """The sequences whose shares differ most (a's share - b's), their 5 innermost methods."""
    ta, tb = sum(a.values()) or 1, sum(b.values()) or 1
    diffs = sorted(((a[k] / ta - b[k] / tb, k) for k in set(a) | set(b)),
                   key=lambda d: -abs(d[0]))[:n]
    short = lambda method: ".".join(method.split(".")[-2:])
    return "\n".join(f"    {100 * d:+5.1f}% {';'.join(short(m) for m in k[-5:]) or '(no workload loop)'}"
                      for d, k in diffs)


def top(dist, n=4):
    total = sum(dist.values()) or 1
    return "\n".join(f"    {100 * c / total:5.1f}% {';'.join(s[-6:]) or '(no workload loop)'}"
                     for s, c in dist.most_common(n))


def main():
    parser = required_args_parser("reader", "java", "agent", "classes", "async-profiler")
    parser.add_argument("--frame-pointers", choices=["on", "off"], default="off")
    parser.add_argument("--xint", action="store_true", help="interpreter only (-Xint)")
    parser.add_argument("--workloads", default=WORKLOADS)
    parser.add_argument("--millis", type=int, default=4000)
    # ~2,700 samples per workload in 3 s: the overlap of two samplings of one distribution with
    # ~10 sequences is ~0.95-0.97 by sampling noise alone at this size (~0.92-0.95 at 199 Hz).
    parser.add_argument("--hz", type=int, default=499)
    parser.add_argument("--min-overlap", type=float, default=0.90)
    parser.add_argument("--stack-natives", help="tests/reader/jvm/native/stackNatives.c, built")
    parser.add_argument("--keep", help="a directory to keep both profiles in, per workload "
                                       "(W.collapsed: async-profiler's, W.folded: vtctx-reader's)")
    args = parser.parse_args()
    require_root()
    workloads = args.workloads.split(",")
    if "native" in workloads and not args.stack_natives:
        parser.error("the native workload needs --stack-natives")
    jvm_flags = ["-XX:+PreserveFramePointer" if args.frame_pointers == "on"
                 else "-XX:-PreserveFramePointer"]
    if args.xint:
        jvm_flags += ["-Xint", "-Dwarmup=50"]
    if args.stack_natives:
        jvm_flags.append(f"-Dvtctx.stackNatives={args.stack_natives}")
    results = []
    with tempfile.TemporaryDirectory(prefix="vtctx-apcmp-") as work:
        os.chmod(work, 0o755)
        argv = [args.java, f"-agentpath:{args.agent}", *jvm_flags, "-cp", args.classes,
                "StackWorkloads",
                ",".join(f"{w}*{LONGER[w]}" if w in LONGER else w for w in workloads), "2",
                str(args.millis)]
        with JvmTarget(argv) as jvm:
            for index, workload in enumerate(workloads):
                pid = jvm.ready_pid(timeout=180, what=f"{workload} warmed up")
                collapsed_path = os.path.join(work, f"{workload}.collapsed")
                subprocess.run(["jattach", str(pid), "load", args.async_profiler, "true",
                                f"start,event=cpu,interval={10**9 // args.hz}ns,threads"],
                               check=True, capture_output=True, timeout=60)
                reader = StreamingReader(args.reader, ["profile", "--pid", str(pid), "--hz",
                                                       str(args.hz), "--format", "folded"])
                try:
                    reader.wait_attached()
                    jvm.send("go")
                    # The window is CPU time: at most 5 times --millis of wall time.
                    jvm.wait_json(lambda l: '"done"' in l,
                                  5 * LONGER.get(workload, 1) * args.millis / 1000 + 120,
                                  f"{workload} done")
                    folded = reader.stop()
                finally:
                    reader.kill()
                subprocess.run(["jattach", str(pid), "load", args.async_profiler, "true",
                                f"stop,file={collapsed_path},collapsed"],
                               check=True, capture_output=True, timeout=60)
                jvm.send("quit")
                with open(collapsed_path) as f:
                    collapsed = f.read()
                ap = ap_distribution(collapsed)
                if args.keep:
                    os.makedirs(args.keep, exist_ok=True)
                    for suffix, text in (("collapsed", collapsed), ("folded", folded)):
                        with open(os.path.join(args.keep, f"{workload}.{suffix}"), "w") as f:
                            f.write(text)
                vt = vtctx_distribution(folded, index)
                score = overlap(ap, vt)
                results.append((workload, score, ap, vt))
                print(f"{workload}: overlap {score:.3f} (async-profiler {sum(ap.values())} "
                      f"samples, vtctx-reader {sum(vt.values())})")
                print(f"  async-profiler:\n{top(ap)}\n  vtctx-reader:\n{top(vt)}\n"
                      f"  largest differences (async-profiler's share - vtctx-reader's):\n"
                      f"{largest_differences(ap, vt)}")
    bad = [f"{w} {s:.3f}" for w, s, ap, vt in results
           if s < args.min_overlap or sum(ap.values()) < 50 or sum(vt.values()) < 50]
    check(not bad, f"Java stacks differ from async-profiler's (overlap < {args.min_overlap} or "
                   f"fewer than 50 samples): {', '.join(bad)}")
    print("PASS")


if __name__ == "__main__":
    main()
