#!/usr/bin/env python3
"""vtctx-reader against virtual threads that never publish a context, after a late attach: their
records were bound at their first mount after the attach and never written. A record that holds
no context must read as "no context" (context ok, valid 0), never as a read fault: BPF cannot
fault pages in, so the agent must hand out records on present pages.

  jvmNoContextTest.py --reader R --java J --jcmd C --agent libvtctx.so --classes DIR
"""
import subprocess
from collections import Counter

from vtctxtest import JvmTarget, check, markers_under_syscalls, require_root, required_args_parser


def main():
    parser = required_args_parser("reader", "java", "jcmd", "agent", "classes")
    parser.add_argument("--threads", type=int, default=2000)
    parser.add_argument("--iterations", type=int, default=5)
    args = parser.parse_args()
    require_root()

    jvm = JvmTarget([args.java, "-XX:+EnableDynamicAgentLoading", "-cp", args.classes,
                     "VtNoContext", str(args.threads), str(args.iterations)],
                    stderr=subprocess.PIPE, err_echo="jvm: ")
    with jvm:
        ready = jvm.wait_json(lambda l: '"ready"' in l)
        pid, base = ready["pid"], ready["base"]
        # jcmd splits its arguments at '=' unless the options are one quoted argument.
        attach = subprocess.run([args.jcmd, str(pid), "JVMTI.agent_load", args.agent,
                                 '"log=info"'], capture_output=True, text=True, timeout=120)
        check(attach.returncode == 0 and "return code: 0" in attach.stdout,
              f"late attach failed: {attach.stdout} {attach.stderr}")
        jvm.err.wait_for(lambda l: l.startswith("vtctx: active"), 60,
                         "the agent's 'vtctx: active'")
        done, events, summary = markers_under_syscalls(args.reader, jvm, pid)

    total = done["markers"]
    seen = {}
    for e in events:
        marker = e["count"] - base
        if 0 <= marker < total:
            seen[marker] = e
    contexts = Counter(e["context"] for e in seen.values())
    valid = Counter(e["valid"] for e in seen.values() if e["context"] == "ok")
    print(f"markers {total}, seen {len(seen)}; context {dict(contexts)}; valid among ok "
          f"{dict(valid)}; reader summary {summary}")
    check(summary.get("dropped") == "0", "the reader dropped events")
    check(len(seen) == total, f"{total - len(seen)} marker writes missing")
    check(contexts["fault"] == 0,
          f"{contexts['fault']} of {total} writes read their thread's record as a fault; a record "
          "nobody wrote must read as no context")
    check(contexts == Counter(ok=total) and valid == Counter({0: total}),
          "every marker must come with its thread's record, holding no context (valid 0)")
    print("PASS")


if __name__ == "__main__":
    main()
