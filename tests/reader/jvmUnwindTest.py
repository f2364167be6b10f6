#!/usr/bin/env python3
"""`profile --format folded` on a JVM WITHOUT -XX:+PreserveFramePointer: the kernel's
frame-pointer walk would stop at the first JIT-compiled frame, so the reader copies each sample's
user stack and unwinds it by HotSpot's frame layout (docs/reader.md, "Java frames"). Virtual
threads spin in VtDeepChain.leaf at the end of run -> chain01 -> ... -> chain12 -> leaf (each kept
out of line). Checks that
  - the reader unwound copies (the summary counts stacks_unwind_stopped=);
  - most samples are in leaf (the workload ran and was sampled), and of those at least
    --min-whole show the whole chain root to leaf, in order, under the virtual thread's entry
    frames on the carrier (jdk.internal.vm.Continuation.run or .enterSpecial);
  - no sample was lost or left without a user stack.

  jvmUnwindTest.py --reader R --java J --agent libvtctx.so --classes DIR
"""
import sys

from vtctxtest import (JvmTarget, StreamingReader, check, require_root, required_args_parser)

CHAIN = (["VtDeepChain.run("] + [f"VtDeepChain.chain{i:02d}(" for i in range(1, 13)]
         + ["VtDeepChain.leaf("])
ENTRY = ("jdk.internal.vm.Continuation.run(", "jdk.internal.vm.Continuation.enterSpecial(")


def whole_chain(frames):
    """The chain, contiguous and in order, ending the stack, under a virtual-thread entry frame."""
    if len(frames) < len(CHAIN) or not all(c in f for c, f in zip(CHAIN, frames[-len(CHAIN):])):
        return False
    return any(e in f for f in frames[:-len(CHAIN)] for e in ENTRY)


def main():
    parser = required_args_parser("reader", "java", "agent", "classes")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--millis", type=int, default=8000)
    parser.add_argument("--min-whole", type=float, default=0.75)
    args = parser.parse_args()
    require_root()

    with JvmTarget([args.java, f"-agentpath:{args.agent}", "-XX:-PreserveFramePointer",
                    "-XX:CompileCommand=quiet", "-XX:CompileCommand=dontinline,VtDeepChain::*",
                    "-cp", args.classes, "VtDeepChain", str(args.threads),
                    str(args.millis)]) as jvm:
        pid = jvm.ready_pid()
        reader = StreamingReader(args.reader, ["profile", "--pid", str(pid), "--hz", "99",
                                               "--format", "folded"])
        try:
            reader.wait_attached()
            jvm.send("go")
            jvm.out.wait_for(lambda l: '"done"' in l, args.millis / 1000 + 120, "JVM done")
            folded = reader.stop()
        finally:
            reader.kill()
        jvm.send("quit")

    total = in_leaf = whole = 0
    broken = {}
    for line in folded.splitlines():
        stack, count = line.rsplit(" ", 1)
        frames = stack.split(";")
        total += int(count)
        if "VtDeepChain.leaf(" not in frames[-1]:
            continue
        in_leaf += int(count)
        if whole_chain(frames):
            whole += int(count)
        else:
            broken[stack] = broken.get(stack, 0) + int(count)
    summary = reader.summary()
    print(f"samples {total}, in leaf {in_leaf}, whole chain under the virtual thread's entry "
          f"{whole}; reader {summary}")
    for stack, n in sorted(broken.items(), key=lambda kv: -kv[1])[:5]:
        print(f"NOT WHOLE ({n}): {stack[-600:]}", file=sys.stderr)
    check("stacks_unwind_stopped" in summary,
          f"the reader did not unwind stack copies (no stacks_unwind_stopped=): {summary}")
    check(total > 0 and in_leaf >= total / 2,
          f"{in_leaf} of {total} samples in VtDeepChain.leaf:\n{folded[:3000]}")
    check(whole >= args.min_whole * in_leaf,
          f"only {whole} of {in_leaf} leaf samples show the whole chain (want "
          f"{args.min_whole:.0%})")
    check(summary["dropped"] == "0" and summary.get("stacks_no_user") == "0",
          f"samples dropped or without a user stack: {summary}")
    print("PASS")


if __name__ == "__main__":
    main()
