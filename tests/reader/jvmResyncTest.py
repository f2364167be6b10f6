#!/usr/bin/env python3
"""Late attach with reader_resync=on: the agent runs its own code on CPU so that a sampling profiler which read the
process's mappings before the attach meets libvtctx.so's code in its samples, the event that
makes the OpenTelemetry eBPF profiler re-read them (docs/interop.md, "A late-attached writer";
agent/readerResync.h).

The agent is attached to an idle JVM (no virtual threads: no agent code runs for the workload),
then two `profile --format folded` sample the process at once for one burst interval plus
margin:
  - with --keep-agent-threads (what a profiler that does not know the agent's threads sees):
    samples whose stack holds the burst (SpinInLibrary, in libvtctx.so) must number at least
    --min; without the option (the default is off) there must be none (the control: the count
    comes from the option, not from the rest of the agent);
  - as a user runs it (default): no frame of vtctx at all (no SpinInLibrary, no libvtctx.so, no
    vtctx:: symbol), and with the option on the summary counts the left-out samples of the
    agent's threads (agent_thread_samples >= --min: the burst ran, and was left out).

  jvmResyncTest.py --reader R --java J --jcmd C --agent libvtctx.so --classes DIR
                   [--agent-options O] [--expect-none]
"""
import json
import subprocess

from vtctxtest import (LineReader, StreamingReader, check, require_root, required_args_parser,
                       stop_jvm)

BURST_FRAME = "SpinInLibrary"
VTCTX_FRAMES = ("SpinInLibrary", "libvtctx.so", "vtctx::")
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
    reader = user_view = None
    try:
        pid = json.loads(out.wait_for(lambda l: '"ready"' in l, 120, "JVM ready"))["pid"]
        options = ",".join(o for o in ["log=info", args.agent_options] if o)
        attach = subprocess.run([args.jcmd, str(pid), "JVMTI.agent_load", args.agent,
                                 f'"{options}"'], capture_output=True, text=True, timeout=120)
        check(attach.returncode == 0, f"jcmd JVMTI.agent_load failed: {attach.stdout}")
        out.wait_for(lambda l: "vtctx: active (attached" in l, 60, "the agent's active line")
        base = ["profile", "--pid", str(pid), "--hz", "199", "--duration", str(WINDOW_S),
                "--format", "folded"]
        reader = StreamingReader(args.reader, base + ["--keep-agent-threads"])
        user_view = StreamingReader(args.reader, base)
        reader.wait_attached()
        user_view.wait_attached()
        outputs = []
        for r in (reader, user_view):
            code = r.proc.wait(timeout=WINDOW_S + 60)
            r.stdout_thread.join(60)
            check(code == 0, f"vtctx-reader profile exited with {code}")
            outputs.append("".join(r.stdout_chunks))
        folded, user_folded = outputs
    finally:
        for r in (reader, user_view):
            if r is not None:
                r.kill()
        stop_jvm(jvm)

    total = burst = 0
    for line in folded.splitlines():
        stack, _, count = line.rpartition(" ")
        total += int(count)
        if BURST_FRAME in stack:
            burst += int(count)
    agent_left_out = int(user_view.summary().get("agent_thread_samples", "0"))
    vtctx_lines = [l for l in user_folded.splitlines() if any(f in l for f in VTCTX_FRAMES)]
    print(f"jvmResyncTest: samples={total} in_burst={burst}; default profile: "
          f"agent_thread_samples={agent_left_out}, vtctx stacks {len(vtctx_lines)}")
    check(not vtctx_lines, f"vtctx frames in the user's profile: {vtctx_lines[:5]}")
    if args.expect_none:
        check(burst == 0, f"{burst} samples in {BURST_FRAME} with '{args.agent_options}'")
    else:
        check(burst >= args.min,
              f"only {burst} samples in {BURST_FRAME} within {WINDOW_S} s of a late attach "
              f"(want >= {args.min}): a profiler that synchronised before the attach may never "
              f"meet libvtctx.so's code")
        check(agent_left_out >= args.min,
              f"the default profile counted {agent_left_out} samples of the agent's threads "
              f"(want >= {args.min}: the burst ran; were they counted?)")
    print("PASS")


if __name__ == "__main__":
    main()
