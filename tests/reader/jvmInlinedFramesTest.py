#!/usr/bin/env python3
"""`profile --format folded` expands the methods C2 inlined: a virtual thread spins in
InlineChain's lambda -> a -> b -> c -> leaf (all inlined into the lambda's compiled loop,
-XX:+PreserveFramePointer; the agent loaded, for `profile` to attach). The reader names them
from the JVM's own nmethod metadata (PcDescs, scopes), with no JVMTI. Once the JVM lists C2 code for the lambda (jcmd Compiler.codelist,
polled), the profile runs; checks that
  - most (>= 50 %) of the samples in the lambda have the whole chain, in order, as consecutive
    frames: lambda$main$0;a;b;c;leaf (root first), and that leaf is the innermost Java frame of
    those stacks;
  - no frame has an InlineChain method out of that order (a callee above its caller);
  - the summary counts the nmethods it expanded (inline_nmethods >= 1);
  - with frame pointers too, the reader unwinds stack copies (stacks_unwind_stopped= in the
    summary) and names interpreted frames by their Method* (interpreted_named >= 1: the virtual
    thread's rarely run frames, e.g. VirtualThread.run, stay interpreted).

  jvmInlinedFramesTest.py --reader R --java J --jcmd C --agent libvtctx.so --classes DIR
"""
import subprocess
import sys
import time

from vtctxtest import JvmTarget, StreamingReader, check, required_args_parser, require_root

CHAIN = ["void InlineChain.lambda$main$0()", "long InlineChain.a(long)",
         "long InlineChain.b(long)", "long InlineChain.c(long)", "long InlineChain.leaf(long, int)"]


def wait_compiled(jcmd, pid, timeout):
    """Polls Compiler.codelist until it lists C2 (level 4) code of the lambda, in use."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        out = subprocess.run([jcmd, str(pid), "Compiler.codelist"], capture_output=True,
                             text=True, timeout=60).stdout
        for line in out.splitlines():
            f = line.split()
            if len(f) >= 4 and f[1] == "4" and f[2] == "0" and \
                    f[3].startswith("InlineChain.lambda$main$0"):
                return line
        time.sleep(0.2)  # polling the condition, bounded by the deadline
    check(False, f"no C2 code for InlineChain.lambda$main$0 within {timeout} s")


def main():
    parser = required_args_parser("reader", "java", "jcmd", "agent", "classes")
    parser.add_argument("--millis", type=int, default=4000)
    args = parser.parse_args()
    require_root()

    argv = [args.java, f"-agentpath:{args.agent}", "-XX:+PreserveFramePointer", "-cp",
            args.classes, "InlineChain", str(args.millis)]
    with JvmTarget(argv) as jvm:
        pid = jvm.ready_pid()
        print("compiled:", wait_compiled(args.jcmd, pid, 120))
        reader = StreamingReader(args.reader, ["profile", "--pid", str(pid), "--hz", "199",
                                               "--format", "folded"])
        try:
            reader.wait_attached()
            jvm.send("go")
            jvm.wait_json(lambda l: '"done"' in l, args.millis / 1000 + 120, "JVM done")
            folded = reader.stop()
        finally:
            reader.kill()

    in_lambda = whole = 0
    bad = []
    for line in folded.splitlines():
        stack, count = line.rsplit(" ", 1)
        frames = stack.split(";")
        if CHAIN[0] not in frames:
            continue
        in_lambda += int(count)
        java = [f for f in frames if f.startswith(("void InlineChain.", "long InlineChain."))]
        order = [CHAIN.index(f) for f in java if f in CHAIN]
        if order != sorted(order) or len(order) != len(set(order)):
            bad.append(line[:400])
        start = frames.index(CHAIN[0])
        if frames[start:start + len(CHAIN)] == CHAIN and java[-1] == CHAIN[-1]:
            whole += int(count)
    summary = reader.summary()
    share = whole / in_lambda if in_lambda else 0
    print(f"samples in the lambda {in_lambda}, with the whole chain {whole} ({100 * share:.1f} %), "
          f"out of order {len(bad)}; reader {summary}")
    for b in bad[:10]:
        print("OUT OF ORDER", b, file=sys.stderr)
    check(in_lambda >= 100, f"too few samples in the lambda ({in_lambda}):\n{folded[:3000]}")
    check(share >= 0.5, f"only {100 * share:.1f} % of the lambda's samples show the inlined chain:"
          f"\n{folded[:3000]}")
    check(not bad, f"{len(bad)} stacks have InlineChain methods out of order")
    check(int(summary.get("inline_nmethods", "0")) >= 1,
          f"the summary does not count expanded nmethods: {summary}")
    check("stacks_unwind_stopped" in summary,
          f"with frame pointers the reader did not unwind stack copies: {summary}")
    check(int(summary.get("interpreted_named", "0")) >= 1,
          f"no interpreted frame named by its method: {summary}")
    print("PASS")


if __name__ == "__main__":
    main()
