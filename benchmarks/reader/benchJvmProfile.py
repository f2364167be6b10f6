#!/usr/bin/env python3
"""BPF cost per sample of `vtctx-reader profile` against a JVM, by sampling rate.

  benchJvmProfile.py --reader R --java J --agent libvtctx.so --classes DIR [--runs 5] [--seconds 8]
                     [--hz 99,999] [--reader-before R0]

One JVM (tests/reader/jvm/VtSpin: 4 virtual threads spinning under their own contexts, frame
pointers on) runs the whole time; for each rate, the reader runs --runs times each with
--bpf-floor (the program stops right after the pid filter: what running ANY program costs per
sample here), --format table, json and folded, interleaved. Reports medians [min-max] of the
kernel's run_time_ns / run_cnt. At a low rate every sample finds the program, its maps, the
task's and the target's memory cold; the floor rows show what that alone costs. With
--reader-before, a second reader binary (e.g. the previous commit's) runs the same configurations
interleaved with the first, rows suffixed "(before)": a side-by-side comparison on the same JVM.
Not a test: it asserts nothing, it prints numbers.
"""
import json
import statistics
import subprocess
import sys

from vtctxtest import LineReader, StreamingReader, require_root, required_args_parser, stop_jvm

CONFIGS = (("floor", ["--bpf-floor"]), ("table", []), ("json", ["--format", "json"]),
           ("folded", ["--format", "folded"]))


def spread(values):
    return f"{statistics.median(values):.0f} [{min(values):.0f}-{max(values):.0f}]"


def main():
    parser = required_args_parser("reader", "java", "agent", "classes")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=8)
    parser.add_argument("--hz", default="99,999")
    parser.add_argument("--reader-before", help="a second reader to interleave (rows '(before)')")
    args = parser.parse_args()
    require_root()

    rates = [int(h) for h in args.hz.split(",")]
    readers = [("", args.reader)] + ([(" (before)", args.reader_before)] if args.reader_before
                                      else [])
    configs = [(name + suffix, extra, binary) for name, extra in CONFIGS
               for suffix, binary in readers]
    total_ms = int((len(rates) * len(configs) * args.runs * (args.seconds + 3) + 60) * 1000)
    jvm = subprocess.Popen(
        [args.java, f"-agentpath:{args.agent}", "-XX:+PreserveFramePointer",
         "-cp", args.classes, "VtSpin", "4", str(total_ms)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    out = LineReader(jvm.stdout)
    results = {}
    try:
        pid = json.loads(out.wait_for(lambda l: '"ready"' in l, 120, "JVM ready"))["pid"]
        jvm.stdin.write("go\n")
        jvm.stdin.flush()
        for _ in range(args.runs):
            for hz in rates:
                for name, extra, binary in configs:
                    reader = StreamingReader(binary, [
                        "profile", "--pid", str(pid), "--hz", str(hz), "--duration",
                        str(args.seconds), "--bpf-stats"] + extra)
                    try:
                        reader.wait_attached()
                        reader.proc.wait(timeout=args.seconds + 60)  # --duration ends it
                        reader.stderr.thread.join(60)
                    finally:
                        reader.kill()
                    s = reader.summary()
                    row = results.setdefault((hz, name), [])
                    row.append(float(s["bpf_ns_per_run"]))
                    print(f"  {hz} Hz {name}: {s.get('bpf_runs')} runs, "
                          f"{s['bpf_ns_per_run']} ns/run", file=sys.stderr)
    finally:
        stop_jvm(jvm)

    print(f"# JVM (VtSpin, 4 spinning virtual threads), {args.runs} runs of {args.seconds} s each, "
          "BPF ns per run, median [min-max]")
    for hz in rates:
        print(f"{hz} Hz: " + ", ".join(f"{name} {spread(results[(hz, name)])}"
                                       for name, _, _ in configs))


if __name__ == "__main__":
    main()
