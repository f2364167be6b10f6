#!/usr/bin/env python3
"""Late attach with reader_resync=on: the agent runs its own code on CPU so that a sampling profiler which read the
process's mappings before the attach meets libvtctx.so's code in its samples, the event that
makes the OpenTelemetry eBPF profiler re-read them (docs/interop.md, "A late-attached writer";
agent/readerResync.h).

The agent is attached to an idle JVM (no virtual threads: no agent code runs for the workload),
then `profile --format folded` samples the process for one burst interval plus margin. Samples
whose stack holds the burst (SpinInLibrary, in libvtctx.so) must number at least --min; without
the option (the default is off) there must be none (the control: the count comes from the option,
not from the rest of the agent).

  jvmResyncTest.py --reader R --java J --jcmd C --agent libvtctx.so --classes DIR
                   [--agent-options O] [--expect-none]
"""
import json
import subprocess

from vtctxtest import (LineReader, StreamingReader, check, require_root, required_args_parser,
                       stop_jvm)

BURST_FRAME = "SpinInLibrary"
# Bursts start every 4 s and last 100 ms of CPU (at most 1 s of wall time): any 6 s window
# holds a whole one, about 20 samples at 199 Hz.
WINDOW_S = 6


def main():
    parser = required_args_parser("reader", "java", "jcmd", "agent", "classes")
    parser.add_argument("--agent-options", default="")
    parser.add_argument("--expect-none", action="store_true")
    parser.add_argument("--min", type=int, default=5)
    args = parser.parse_args()
    require_root()

    jvm = subprocess.Popen([args.java, "-XX:+EnableDynamicAgentLoading", "-cp", args.classes,
                            "IdleTarget"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
    out = LineReader(jvm.stdout, echo_prefix="jvm: ")
    reader = None
    try:
        pid = json.loads(out.wait_for(lambda l: '"ready"' in l, 120, "JVM ready"))["pid"]
        options = ",".join(o for o in ["log=info", args.agent_options] if o)
        attach = subprocess.run([args.jcmd, str(pid), "JVMTI.agent_load", args.agent,
                                 f'"{options}"'], capture_output=True, text=True, timeout=120)
        check(attach.returncode == 0, f"jcmd JVMTI.agent_load failed: {attach.stdout}")
        out.wait_for(lambda l: "vtctx: active (attached" in l, 60, "the agent's active line")
        reader = StreamingReader(args.reader, ["profile", "--pid", str(pid), "--hz", "199",
                                               "--duration", str(WINDOW_S), "--format", "folded"])
        reader.wait_attached()
        code = reader.proc.wait(timeout=WINDOW_S + 60)
        reader.stdout_thread.join(60)
        check(code == 0, f"vtctx-reader profile exited with {code}")
        folded = "".join(reader.stdout_chunks)
    finally:
        if reader is not None:
            reader.kill()
        stop_jvm(jvm)

    total = burst = 0
    for line in folded.splitlines():
        stack, _, count = line.rpartition(" ")
        total += int(count)
        if BURST_FRAME in stack:
            burst += int(count)
    print(f"jvmResyncTest: samples={total} in_burst={burst}")
    if args.expect_none:
        check(burst == 0, f"{burst} samples in {BURST_FRAME} with '{args.agent_options}'")
    else:
        check(burst >= args.min,
              f"only {burst} samples in {BURST_FRAME} within {WINDOW_S} s of a late attach "
              f"(want >= {args.min}): a profiler that synchronised before the attach may never "
              f"meet libvtctx.so's code")
    print("PASS")


if __name__ == "__main__":
    main()
