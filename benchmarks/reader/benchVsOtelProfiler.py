#!/usr/bin/env python3
"""BPF cost per sample of `vtctx-reader profile` against the OpenTelemetry eBPF profiler, on the
same samples.

  benchVsOtelProfiler.py --reader R --java J --agent libvtctx.so --classes DIR
                         --profiler ebpf-profiler --otlpsink otlpsink
                         [--runs 5] [--seconds 10] [--hz 99] [--modes fp,nofp] [--warmup 15]
                         [--min-share 0.95] [--max-tries 4] [--work DIR]

--profiler is a built opentelemetry-ebpf-profiler (the PR #1229 head reads OTEP 4947 thread
contexts, as the reader does; docs/interop.md says how it is built), --otlpsink a built
tests/interop/otlpsink (the profiler needs an OTLP receiver). Nothing is downloaded or built here.

For each mode (fp: the JVM runs with -XX:+PreserveFramePointer; nofp: without, the reader then
unwinds stack copies), one JVM (tests/reader/jvm/VtSpin, 4 spinning virtual threads: both CPUs of
a 2-vCPU machine busy) runs the whole time, and the profiler
(`-t hotspot,thread_context -samples-per-second HZ`) samples the whole machine beside it. After
--warmup seconds, the reader runs --runs times each with --format table and --format folded,
interleaved, at the same rate (both open one cpu-clock perf event per CPU, all threads, period
1e9/HZ ns: the kernel turns the profiler's sample_freq into that period), so both BPF programs run
on the same interrupts. For each reader run (a window) the profiler's counters are read from
/proc/<profiler>/fdinfo when the reader is attached and again --seconds later, when its sampling
ends; the reader reports its own (--bpf-stats). Reports medians [min-max] of ns per program run
for both, and of the per-window ratios reader/profiler.

Both programs run on every sample of every process, so the comparison holds only while the JVM is
the only busy process: a window in which the JVM had less than --min-share of the samples (the
reader's matched / bpf_runs; anything else running on the machine lowers it) is discarded and
run again, at most --max-tries times per window; the discarded windows are counted in the output.

The profiler's perf_event entry program (native_tracer_entry) tail-calls its unwinders; the
kernel's run statistics wrap the whole run of the program a perf event invokes
(__bpf_prog_run), and tail calls jump inside it, so the entry program's run_time_ns holds the
tail-called programs' time and their own counters stay 0 (checked: the script sums every
perf_event program of the profiler and prints which ones ran). Needs root and bpftool (the
programs' names); kernel.bpf_stats_enabled is set to 1 for the run and restored. Not a test: it
asserts nothing, it prints numbers.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from vtctxtest import LineReader, StreamingReader, require_root, required_args_parser
from vtctxtest.targets import start_target

CONFIGS = (("table", []), ("folded", ["--format", "folded"]))
BPF_PROG_TYPE_PERF_EVENT = 7
STATS_SYSCTL = "/proc/sys/kernel/bpf_stats_enabled"


def spread(values):
    return f"{statistics.median(values):.0f} [{min(values):.0f}-{max(values):.0f}]"


def perf_prog_stats(pid):
    """{prog_id: (run_cnt, run_time_ns)} of the perf_event programs process pid holds fds of."""
    stats = {}
    fdinfo = f"/proc/{pid}/fdinfo"
    for fd in os.listdir(fdinfo):
        try:
            with open(f"{fdinfo}/{fd}") as f:
                fields = dict(line.split(":", 1) for line in f if ":" in line)
        except OSError:
            continue
        if fields.get("prog_type", "").strip() != str(BPF_PROG_TYPE_PERF_EVENT):
            continue
        stats[int(fields["prog_id"])] = (int(fields["run_cnt"]), int(fields["run_time_ns"]))
    return stats


def prog_name(prog_id):
    out = subprocess.run(["bpftool", "-j", "prog", "show", "id", str(prog_id)],
                         capture_output=True, text=True)
    return json.loads(out.stdout).get("name", "?") if out.returncode == 0 else "?"


def totals(stats):
    return (sum(c for c, _ in stats.values()), sum(t for _, t in stats.values()))


def wait_for_profiler(pid, proc, timeout):
    """Waits until the profiler's perf_event entry program has run (it is attached)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            sys.exit(f"ebpf-profiler exited with {proc.returncode} (see its log)")
        if totals(perf_prog_stats(pid))[0] > 0:
            return
        time.sleep(0.5)
    sys.exit(f"ebpf-profiler did not start sampling within {timeout} s")


def jvm_samples(sink_log, jvm_pid):
    """Samples the OTLP sink received for the JVM and for other processes."""
    jvm = other = 0
    with open(sink_log) as f:
        for line in f:
            if not line.startswith("SAMPLE "):
                continue
            fields = dict(w.split("=", 1) for w in line.split() if "=" in w)
            n = int(fields.get("n", "1"))
            if fields.get("pid") == str(jvm_pid):
                jvm += n
            else:
                other += n
    return jvm, other


def run_mode(args, mode, work):
    """One JVM, the profiler beside it, --runs windows per reader configuration. Returns
    {config: [(ours ns/run, profiler ns/run, ours runs, profiler runs, JVM share)]}, the discarded
    windows per configuration and the sink's sample counts."""
    total_ms = 24 * 3600 * 1000  # spins until killed
    jvm = start_target([args.java, f"-agentpath:{args.agent}"]
                       + (["-XX:+PreserveFramePointer"] if mode == "fp" else [])
                       + ["-cp", args.classes, "VtSpin", "4", str(total_ms)],
                       stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    out = LineReader(jvm.stdout)
    sink_log = os.path.join(work, f"otlpsink-{mode}.log")
    procs = []
    results = {}
    discarded = {}
    try:
        pid = json.loads(out.wait_for(lambda l: '"ready"' in l, 120, "JVM ready"))["pid"]
        jvm.stdin.write("go\n")
        jvm.stdin.flush()
        with open(sink_log, "w") as sink_out:
            procs.append(start_target([args.otlpsink, "-listen", args.otlp_endpoint],
                                      stdout=sink_out, stderr=subprocess.STDOUT))
        with open(os.path.join(work, f"ebpf-profiler-{mode}.log"), "w") as prof_out:
            profiler = start_target(
                [args.profiler, "-collection-agent", args.otlp_endpoint, "-disable-tls",
                 "-t", "hotspot,thread_context", "-reporter-interval", "2s",
                 "-samples-per-second", str(args.hz), "-v"],
                stdout=prof_out, stderr=subprocess.STDOUT)
            procs.append(profiler)
        wait_for_profiler(profiler.pid, profiler, 120)
        time.sleep(args.warmup)
        names = {i: prog_name(i) for i in perf_prog_stats(profiler.pid)}
        print(f"  [{mode}] profiler perf_event programs: "
              + ", ".join(f"{names[i]} (id {i})" for i in sorted(names)), file=sys.stderr)
        for _ in range(args.runs):
            for name, extra in CONFIGS:
                for _ in range(args.max_tries):
                    window = run_window(args, pid, profiler.pid, names, extra)
                    share = window[4]
                    print(f"  [{mode}] {name}: ours {window[2]} runs {window[0]:.0f} ns/run, "
                          f"profiler {window[3]} runs {window[1]:.0f} ns/run "
                          f"(programs that ran: {window[5]}), ratio {window[0] / window[1]:.3f}, "
                          f"JVM share {share:.2f}" + ("" if share >= args.min_share
                                                      else " (discarded)"), file=sys.stderr)
                    if share >= args.min_share:
                        results.setdefault(name, []).append(window[:5])
                        break
                    discarded[name] = discarded.get(name, 0) + 1
    finally:
        for p in reversed(procs):
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        jvm.kill()  # VtSpin reads "quit" only once its time is up
        jvm.wait()
    return results, discarded, jvm_samples(sink_log, pid)


def run_window(args, pid, profiler_pid, names, extra):
    """One reader run; returns (ours ns/run, profiler ns/run, ours runs, profiler runs,
    the JVM's share of our runs, {profiler program: runs})."""
    reader = StreamingReader(args.reader, [
        "profile", "--pid", str(pid), "--hz", str(args.hz), "--duration", str(args.seconds),
        "--bpf-stats"] + extra)
    try:
        reader.wait_attached()
        start = time.monotonic()
        before = perf_prog_stats(profiler_pid)
        time.sleep(max(0.0, start + args.seconds - time.monotonic()))
        after = perf_prog_stats(profiler_pid)  # when the reader's sampling ends
        reader.proc.wait(timeout=60)  # --duration ends it
        reader.stderr.thread.join(60)
    finally:
        reader.kill()
    s = reader.summary()
    ran = {names.get(i, i): after[i][0] - before[i][0] for i in after
           if i in before and after[i][0] > before[i][0]}
    (c0, t0), (c1, t1) = totals(before), totals(after)
    runs = int(s["bpf_runs"])
    return (float(s["bpf_ns_per_run"]), (t1 - t0) / max(c1 - c0, 1), runs, c1 - c0,
            int(s["matched"]) / max(runs, 1), ran)


def main():
    parser = required_args_parser("reader", "java", "agent", "classes", "profiler", "otlpsink")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--hz", type=int, default=99)
    parser.add_argument("--modes", default="fp,nofp")
    parser.add_argument("--warmup", type=float, default=15,
                        help="seconds between the profiler's start and the first window")
    parser.add_argument("--min-share", type=float, default=0.95,
                        help="keep a window only if the JVM had this share of the samples")
    parser.add_argument("--max-tries", type=int, default=4, help="attempts per window")
    parser.add_argument("--otlp-endpoint", default="127.0.0.1:4317")
    parser.add_argument("--work", help="where the profiler's and the sink's logs go "
                                       "(default: a new temporary directory)")
    args = parser.parse_args()
    require_root()
    work = args.work or tempfile.mkdtemp(prefix="vtctx-vs-otel-")
    os.makedirs(work, exist_ok=True)
    print(f"logs in {work}", file=sys.stderr)

    with open(STATS_SYSCTL) as f:
        stats_before = f.read().strip()
    with open(STATS_SYSCTL, "w") as f:
        f.write("1")
    all_results = {}
    try:
        for mode in args.modes.split(","):
            all_results[mode] = run_mode(args, mode, work)
    finally:
        with open(STATS_SYSCTL, "w") as f:
            f.write(stats_before)

    print(f"# JVM (VtSpin, 4 spinning virtual threads), {args.hz} Hz per CPU, windows of "
          f"{args.seconds} s in which the JVM had >= {args.min_share:.0%} of the samples; BPF ns "
          "per program run, median [min-max]; ours/profiler: median [min-max] of the per-window "
          "ratios")
    print("| JVM | reader format | windows (discarded) | ours ns/run | profiler ns/run "
          "| ours/profiler | runs ours / profiler (median) |")
    print("|---|---|---|---|---|---|---|")
    for mode, (results, discarded, _) in all_results.items():
        jvm_label = ("-XX:+PreserveFramePointer" if mode == "fp" else "no frame pointers")
        for name, _ in CONFIGS:
            rows = results.get(name, [])
            if not rows:
                print(f"| {jvm_label} | {name} | 0 ({discarded.get(name, 0)}) | - | - | - | - |")
                continue
            ratios = [r[0] / r[1] for r in rows]
            print(f"| {jvm_label} | {name} | {len(rows)} ({discarded.get(name, 0)}) "
                  f"| {spread([r[0] for r in rows])} | {spread([r[1] for r in rows])} "
                  f"| {statistics.median(ratios) * 100:.1f} % "
                  f"[{min(ratios) * 100:.1f}-{max(ratios) * 100:.1f}] "
                  f"| {statistics.median([r[2] for r in rows]):.0f} / "
                  f"{statistics.median([r[3] for r in rows]):.0f} |")
    for mode, (_, _, (jvm_n, other_n)) in all_results.items():
        print(f"# {mode}: samples the profiler exported over the whole run (warm-up included): "
              f"JVM {jvm_n}, other processes {other_n}")


if __name__ == "__main__":
    main()
