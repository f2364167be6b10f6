#!/usr/bin/env python3
"""`profile --format folded` on a JVM with the real agent: virtual threads burn CPU in
VtSpin.spinEven (even index) or VtSpin.spinOdd (odd index) and hop carriers between bursts.
Checks that
  - JIT frames are named without the user arranging anything: the reader asks the JVM for its
    perf map itself (Compiler.perfmap through the attach socket, no jcmd here): both spin methods
    appear in the folded stacks, which only the perf map can name;
  - every stack whose innermost VtSpin frame is spinEven/spinOdd sits under the trace and span
    of a virtual thread of the same parity (the context and the stack agree), none without one;
  - no sample is lost: the folded counts add up to the samples the summary reports, none was
    dropped, every sample has its user stack (each carries its own: no shared stack map), and the
    summary counts the stacks at the depth limit.

  jvmProfileTest.py --reader R --java J --jcmd C --agent libvtctx.so --classes DIR
"""
import json
import os
import re
import subprocess
import sys

from vtctxtest import (LineReader, StreamingReader, check, require_root, required_args_parser,
                       stop_jvm)

TRACE = re.compile(r"^trace_7370696e([0-9a-f]{8})0{16};span_([0-9a-f]{16})$")


def main():
    parser = required_args_parser("reader", "java", "jcmd", "agent", "classes")
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--millis", type=int, default=3000)
    parser.add_argument("--agent-options", default="", help="e.g. fault=stale-carrier")
    args = parser.parse_args()
    require_root()

    jvm = subprocess.Popen(
        [args.java, f"-agentpath:{args.agent}" + (f"={args.agent_options}" if args.agent_options else ""),
         "-XX:+PreserveFramePointer",
         "-XX:CompileCommand=quiet", "-XX:CompileCommand=dontinline,VtSpin::spin*",
         "-cp", args.classes, "VtSpin", str(args.threads), str(args.millis)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    out = LineReader(jvm.stdout, echo_prefix="jvm: ")
    reader = None
    perf_map = None
    try:
        pid = json.loads(out.wait_for(lambda l: '"ready"' in l, 120, "JVM ready"))["pid"]
        perf_map = f"/tmp/perf-{pid}.map"
        reader = StreamingReader(args.reader, ["profile", "--pid", str(pid), "--hz", "199",
                                               "--format", "folded"])
        reader.wait_attached()
        jvm.stdin.write("go\n")
        jvm.stdin.flush()
        out.wait_for(lambda l: '"done"' in l, args.millis / 1000 + 120, "JVM done")
        folded = reader.stop()
        # It asked the JVM for its perf map (the JIT names below prove it) and removed the file.
        check(not os.path.exists(perf_map), "the reader left the JVM's perf map in its /tmp")
    finally:
        if reader:
            reader.kill()
        stop_jvm(jvm)
        if perf_map and os.path.exists(perf_map):
            os.remove(perf_map)

    seen = {"spinEven": 0, "spinOdd": 0}
    bad = []
    total = 0
    for line in folded.splitlines():
        stack, count = line.rsplit(" ", 1)
        total += int(count)
        frames = stack.split(";")
        for marker in ("[stack lost]", "[no user stack]"):
            if marker in frames:
                bad.append(f"{marker}: {line[:300]}")
        spins = [f for f in frames if "VtSpin.spinEven" in f or "VtSpin.spinOdd" in f]
        if not spins:
            continue
        method = "spinEven" if "spinEven" in spins[-1] else "spinOdd"
        seen[method] += int(count)
        m = TRACE.match(";".join(frames[:2]))
        if not m:
            bad.append(f"{method} without a VtSpin context: {line[:300]}")
            continue
        index = int(m.group(1), 16)
        if int(m.group(2), 16) != index + 1:
            bad.append(f"span does not belong to trace: {line[:300]}")
        if (index % 2 == 0) != (method == "spinEven"):
            bad.append(f"{method} under the context of virtual thread {index}: {line[:300]}")
    print(f"samples in spinEven {seen['spinEven']}, spinOdd {seen['spinOdd']}, "
          f"mismatches {len(bad)}; reader {reader.summary()}")
    for b in bad[:10]:
        print("MISMATCH", b, file=sys.stderr)
    check(seen["spinEven"] > 0 and seen["spinOdd"] > 0,
          "JIT frames of VtSpin.spinEven/spinOdd not found (perf map symbolisation or frame "
          f"pointers broken):\n{folded[:3000]}")
    check(not bad, f"{len(bad)} stacks disagree with their context or have none")
    summary = reader.summary()
    check(total > 0 and total == int(summary["samples"]) == int(summary["matched"]),
          f"folded stacks hold {total} samples, the summary says {summary}")
    check(summary["dropped"] == "0", f"samples dropped: {summary}")
    check(summary.get("stacks_no_user") == "0" and "stacks_depth_limited" in summary,
          f"the summary must count incomplete stacks, none without a user stack: {summary}")
    print("PASS")


if __name__ == "__main__":
    main()
