#!/usr/bin/env python3
"""The demo (scripts/demo.sh builds, then runs this as root): a virtual-thread HTTP service with
OpenTelemetry spans under the vtctx agent, a load generator, and vtctx-reader sampling the
service's CPU. Prints which requests burned the CPU, checks that every slow request's CPU fits
inside it, shows what naive OS-thread attribution would have reported, writes a span-filtered
flame graph, and ends with one line: RESULT OK ... or RESULT FAIL <reason>.
"""
import argparse
import json
import os
import re
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "scripts", "lib")]
import attribution  # noqa: E402
import report  # noqa: E402
import slowGraph  # noqa: E402
from processes import Children, ProcessError, raise_on_termination_signals  # noqa: E402

SLOW_ENDPOINT = "GET /notes/42"
OUTPUT_FILES = ["slow-requests.svg", "slow-requests.folded", "profile.folded", "samples.jsonl",
                "requests.jsonl", "summary.json"]
OUTPUT_DESCRIPTIONS = ["flame graph of the slow requests (span-filtered)",
                       "its folded stacks (carrier frames folded into one)",
                       "all samples' stacks by trace/span (the reader's output)",
                       "every sample with its trace/span (the reader's output)",
                       "the service's request log (ground truth)",
                       "the numbers above"]
LOG_FILES = ["service.log", "load.log", "reader-json.log", "reader-folded.log"]


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--java-home", required=True)
    p.add_argument("--agent", required=True, help="libvtctx.so")
    p.add_argument("--reader", required=True, help="vtctx-reader")
    p.add_argument("--classpath", required=True, help="demo jar, OpenTelemetry SDK, shim jar")
    p.add_argument("--native-dir", required=True,
                   help="directory of libvtctx_demo_native.so and vtctx_demo_flamegraph")
    p.add_argument("--out", required=True)
    p.add_argument("--seconds", type=float, default=20, help="profiled load phase")
    p.add_argument("--warmup", type=float, default=4)
    p.add_argument("--hz", type=int, default=499)
    p.add_argument("--clients", type=int, default=8)
    p.add_argument("--think-ms", type=int, default=4)
    p.add_argument("--slow-every-ms", type=int, default=1500)
    p.add_argument("--big-note-chars", type=int, default=4_000_000)
    p.add_argument("--agent-options", default="",
                   help="extra agent options, e.g. fault=stale-carrier (test only)")
    p.add_argument("--judge", choices=["vtctx", "naive"], default="vtctx",
                   help="which attribution RESULT judges (naive: shows that the checks fail)")
    return p.parse_args()


def say(text=""):
    print(text, flush=True)


class LineCounter:
    """Counts the lines of a file that another process appends to, incrementally."""

    def __init__(self, path):
        self.path, self.offset, self.lines = path, 0, 0

    def count(self):
        try:
            with open(self.path, "rb") as f:
                f.seek(self.offset)
                chunk = f.read()
        except FileNotFoundError:
            return 0
        self.offset += len(chunk)
        self.lines += chunk.count(b"\n")
        return self.lines


def start_service(args, out, children):
    java = os.path.join(args.java_home, "bin", "java")
    agent = f"-agentpath:{args.agent}" + (f"={args.agent_options}" if args.agent_options else "")
    # No -XX:+PreserveFramePointer: as services run (the reader unwinds copies of the stacks).
    argv = [java, agent,
            f"-Djava.library.path={args.native_dir}", "--enable-native-access=ALL-UNNAMED",
            "-Dotel.service.name=notes-demo", "-Dotel.traces.exporter=none",
            "-Dotel.metrics.exporter=none", "-Dotel.logs.exporter=none",
            "-cp", args.classpath, "io.vtctx.demo.NotesService",
            os.path.join(out, "requests.jsonl"), str(args.big_note_chars)]
    service = children.start("service", argv, os.path.join(out, "service.log"), stdin=True)
    line = service.wait_for(lambda l: isinstance(l, str) and '"listening"' in l, 90,
                            "the service to listen")
    info = json.loads(line)
    agent_lines = [l for l in service.stderr_lines if l.startswith("vtctx:")]
    if not any(l.startswith("vtctx: active") for l in agent_lines):
        raise ProcessError(f"the vtctx agent is not active in the service: {agent_lines}")
    say(f"service  pid {info['pid']}, http://127.0.0.1:{info['port']}/notes/{{id}}, "
        f"{info['carriers']} carriers, Java {info['java']}")
    say(f"         {agent_lines[0]}")
    return service, info


def start_load(args, out, children, port):
    java = os.path.join(args.java_home, "bin", "java")
    argv = [java, "-cp", args.classpath, "io.vtctx.demo.LoadGenerator", str(port),
            str(args.warmup), str(args.seconds), str(args.clients), str(args.think_ms),
            str(args.slow_every_ms)]
    load = children.start("load generator", argv, os.path.join(out, "load.log"), stdin=True)
    say(f"load     {args.clients} clients requesting small notes (GET /notes/{{id}}, "
        f"{args.think_ms} ms think time), one {SLOW_ENDPOINT} (a "
        f"{args.big_note_chars / 1e6:.0f}M-character note) every {args.slow_every_ms} ms")
    say(f"         warming up the service's JIT for {args.warmup:.0f} s ...")
    load.wait_for(lambda l: isinstance(l, str) and '"warm"' in l, args.warmup + 90,
                  "the load generator's warm-up")
    return load


def start_readers(args, out, children, pid):
    readers = {}
    for fmt, file in (("json", "samples.jsonl"), ("folded", "profile.folded")):
        argv = [args.reader, "profile", "--pid", str(pid), "--hz", str(args.hz), "--format", fmt]
        readers[fmt] = children.start(f"vtctx-reader ({fmt})", argv,
                                      os.path.join(out, f"reader-{fmt}.log"),
                                      stdout_path=os.path.join(out, file))
    for reader in readers.values():
        reader.wait_for(lambda l: l == ("stderr", "vtctx-reader: attached"), 60,
                        f"'{reader.name}: attached'")
    say(f"profile  vtctx-reader profile --pid {pid} --hz {args.hz} --format json (and --format "
        f"folded), for {args.seconds:.0f} s:")
    return readers


def run_load(args, load, counter):
    def progress(line):
        if isinstance(line, str) and '"progress"' in line:
            p = json.loads(line)
            say(f"  [{p['elapsed_s']:>3}/{args.seconds:.0f} s] {p['requests']:>7,} requests "
                f"({p['slow']} slow, {p['errors']} errors), {counter.count():>7,} samples")

    load.send("go")
    done = json.loads(load.wait_for(lambda l: isinstance(l, str) and '"done"' in l,
                                    args.seconds + 120, "the load to finish", on_line=progress))
    say(f"  done: {done['requests']:,} requests ({done['slow']} slow, {done['errors']} errors), "
        f"{counter.count():,} samples")
    if done["errors"]:
        raise ProcessError(f"{done['errors']} requests failed (see the load generator's log)")
    return done


def write_perf_map(args, pid, children):
    """JIT frames are named from /tmp/perf-<pid>.map; the folded reader reads it when it stops."""
    perf_map = f"/tmp/perf-{pid}.map"
    children.cleanups.append(lambda: os.path.exists(perf_map) and os.remove(perf_map))
    jcmd = os.path.join(args.java_home, "bin", "jcmd")
    done = subprocess.run([jcmd, str(pid), "Compiler.perfmap"], capture_output=True, text=True,
                          timeout=120)
    if done.returncode != 0 or not os.path.exists(perf_map):
        raise ProcessError(f"jcmd {pid} Compiler.perfmap failed: {done.stdout}{done.stderr}")


def stop_readers(readers):
    summaries = {}
    for reader in readers.values():
        reader.signal(signal.SIGINT)
    for fmt, reader in readers.items():
        code = reader.wait_exit(60)
        if code != 0:
            raise ProcessError(f"{reader.name} exited with {code}: {reader.stderr_lines[-3:]}")
        lines = [l for l in reader.stderr_lines if l.startswith("vtctx-reader: summary:")]
        summaries[fmt] = lines[-1].split("summary: ", 1)[1] if lines else "(no summary)"
    return summaries


ATTRIBUTIONS = {  # name: (column header, second header line)
    "vtctx": ("vtctx", ""),
    "naive": ("naive", "(tag cleared)"),
    "naive_last_started": ("naive", "(never cleared)"),
}


def analyse(args, out, window, summaries):
    requests = attribution.load_jsonl(os.path.join(out, "requests.jsonl"))
    samples = attribution.load_jsonl(os.path.join(out, "samples.jsonl"))
    period_ns = 1e9 / args.hz
    is_slow = lambda r: r["endpoint"] == SLOW_ENDPOINT and r["status"] == 200  # noqa: E731
    owners = {
        "vtctx": attribution.vtctx_owners(samples),
        "naive": attribution.naive_owners(samples, requests),
        "naive_last_started": attribution.naive_owners(samples, requests, clear_at_end=False),
    }
    results = {name: attribution.evaluate(samples, o, requests, period_ns, is_slow, window)
               for name, o in owners.items()}
    slow_traces = {r["trace_id"] for r in requests if is_slow(r)}
    crosses = {name: attribution.cross_check(owners["vtctx"], o, slow_traces)
               for name, o in owners.items()}

    say()
    say(f"{len(requests):,} requests logged by the service, {len(samples):,} CPU samples of the "
        f"service ({summaries['json']})")
    say()
    report.print_top("Top traces by CPU, vtctx (each sample carries the trace of the virtual thread "
                     "mounted on the sampled carrier):", results["vtctx"])
    report.print_slow(results["vtctx"], results["naive"], period_ns / 1e6)
    report.print_top("Top traces by CPU, naive OS-thread attribution (what a profiler without vtctx "
                     "reports: the trace tagged on the sampled OS thread):", results["naive"])
    report.print_comparison(results, crosses, ATTRIBUTIONS)

    kept = slowGraph.write(out, slow_traces, SLOW_ENDPOINT, len(results["vtctx"]["slow"]),
                           os.path.join(args.native_dir, "vtctx_demo_flamegraph"))
    say(f"Where the slow requests' CPU goes (share of their samples, from the span-filtered flame "
        f"graph): {slowGraph.hot_frames(kept)}")
    limited = re.search(r"stacks_depth_limited=(\d+)", summaries["folded"])
    total = re.search(r"samples=(\d+)", summaries["folded"])
    if limited and total and int(limited[1]) > 0:
        say(f"  ({int(limited[1]) / max(int(total[1]), 1):.0%} of the samples have a stack at the "
            f"kernel's depth limit, shown as [truncated])")
    say()
    return results, crosses


def verdict(args, results, crosses):
    judged = results[args.judge]
    reasons = attribution.failures(judged)
    v, n = results["vtctx"], results["naive"]
    prefix = "(judging NAIVE attribution) " if args.judge == "naive" else ""
    measured = v["slow_measured_cpu_ms"]
    facts = (f"{len(v['slow'])} slow requests: vtctx {v['slow_cpu_ms']:,.0f} ms sampled vs "
             f"{measured:,.0f} ms measured CPU ({v['slow_cpu_ms'] / max(measured, 1e-9):.0%}), "
             f"{v['samples_inside']:,}/{v['tagged_samples']:,} tagged samples inside their "
             f"request, {v['requests_over_duration']} requests over their duration; naive "
             f"OS-thread attribution: {report.share(crosses['naive'], 'same_request')} of the "
             f"slow requests' CPU, {n['samples_outside']:,} samples outside their request, "
             f"{n['requests_over_duration']} requests over their duration")
    if reasons:
        return f"RESULT FAIL {prefix}{'; '.join(reasons)}", 1
    return f"RESULT OK {prefix}{facts}", 0


def write_summary(args, out, info, done, summaries, results, crosses, result_line):
    def trim(result):
        return {k: (v[:20] if k == "top" else v) for k, v in result.items()}

    summary = {
        "result": result_line,
        "service": info,
        "load": done,
        "profile": {"hz": args.hz, "seconds": args.seconds, "readers": summaries},
        "checks": {"fit_slack_periods": attribution.FIT_SLACK_PERIODS,
                   "cpu_ratio_range": attribution.CPU_RATIO_RANGE,
                   "judged": args.judge, "agent_options": args.agent_options},
        "attributions": {name: trim(r) for name, r in results.items()},
        "slow_request_samples_seen_by": crosses,
    }
    with open(os.path.join(out, "summary.json"), "w", encoding="utf-8") as f:
        json.dump(summary, f, indent=1)
        f.write("\n")


def run(args, out, children):
    started = time.monotonic()
    service, info = start_service(args, out, children)
    load = start_load(args, out, children, info["port"])
    readers = start_readers(args, out, children, info["pid"])
    window_start = time.monotonic_ns()  # CLOCK_MONOTONIC, the clock of the samples' ts_ns
    done = run_load(args, load, LineCounter(os.path.join(out, "samples.jsonl")))
    write_perf_map(args, info["pid"], children)
    window_end = time.monotonic_ns()
    summaries = stop_readers(readers)
    service.send("flush")
    flushed = json.loads(service.wait_for(lambda l: isinstance(l, str) and '"flushed"' in l, 60,
                                          "the request log"))
    if flushed["requests"] < 0:
        raise ProcessError("the service's request log timed out waiting for requests in flight")
    service.send("quit")
    load.wait_exit(30)
    service.wait_exit(30)

    results, crosses = analyse(args, out, (window_start, window_end), summaries)
    result_line, code = verdict(args, results, crosses)
    write_summary(args, out, info, done, summaries, results, crosses, result_line)
    say(f"demo run: {time.monotonic() - started:.0f} s")
    say(f"Output in {out}/:")
    for name, what in zip(OUTPUT_FILES, OUTPUT_DESCRIPTIONS):
        say(f"  {name:<22}{what}")
    say()
    say(result_line)
    return code


def main():
    args = parse_args()
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    for name in OUTPUT_FILES + LOG_FILES:  # only what an earlier run wrote: --out may be any dir
        path = os.path.join(out, name)
        if os.path.exists(path):
            os.remove(path)
    raise_on_termination_signals()
    children = Children()
    code = 1
    try:
        code = run(args, out, children)
    except KeyboardInterrupt:
        say("\ndemo: interrupted; stopping every process it started")
        say("RESULT FAIL interrupted")
        code = 130
    except ProcessError as e:
        say(f"RESULT FAIL {e}")
        code = 1
    finally:
        # A second Ctrl-C must not cut the clean-up short.
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, signal.SIG_IGN)
        children.stop_all()
    sys.exit(code)


if __name__ == "__main__":
    main()
