#!/usr/bin/env python3
"""Offline self-test of interopCheck.py (ctest interop.check_selftest): the checker must accept
reader output that matches the workload's contexts and reject a wrong span, a wrong or missing
attribute, an unknown trace and a virtual thread never seen. The interop run itself needs the
external readers and network access: scripts/interop.sh, docs/interop.md."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CHECK = os.path.join(HERE, "interopCheck.py")
WORKLOAD = """EXPECT 0 0123456789abcdeffedcba9876543210 1122334455667788 GET /api/test/0 vt-0
EXPECT 1 0123456789abcdeffedcba9876543211 1122334455667789 GET /api/test/1 vt-1
READY 4242
"""


def otlp(trace, span, route, user, tid=7, pid=4242):
    return (f"SAMPLE pid={pid} n=1 trace={trace} span={span} process.context.label.method=GET "
            f"process.context.label.route={route} process.context.label.user={user} "
            f"thread.name=ForkJoinPool-1- thread.id={tid} cpu.logical_number=0\n")


def csd(trace, span, route, user, tid=7):
    return (f"\x1b[2m2026\x1b[0m INFO context_reader::output: [v2] iteration = 1, thread = {tid}, "
            f"labels = [trace_id={trace}, span_id={span}, method=GET, route={route}, user={user}]\n")


T0, S0 = "0123456789abcdeffedcba9876543210", "1122334455667788"
T1, S1 = "0123456789abcdeffedcba9876543211", "1122334455667789"


def run(mode, lines, *extra):
    with tempfile.TemporaryDirectory() as d:
        w, o = os.path.join(d, "jvm.txt"), os.path.join(d, "out.txt")
        open(w, "w").write(WORKLOAD)
        open(o, "w").write("".join(lines))
        r = subprocess.run([sys.executable, CHECK, mode, w, o, *extra], capture_output=True,
                           text=True)
        return r.returncode, r.stdout


def main():
    failures = []
    for mode, line in (("otlp", otlp), ("csd", csd)):
        good = [line(T0, S0, "/api/test/0", "vt-0", 7), line(T0, S0, "/api/test/0", "vt-0", 8),
                line(T1, S1, "/api/test/1", "vt-1", 8)]
        cases = {
            "matching": (good, 0),
            "wrong span": (good + [line(T1, S0, "/api/test/1", "vt-1")], 1),
            "wrong attribute": (good + [line(T0, S0, "/api/test/1", "vt-0")], 1),
            "unknown trace": (good + [line("ff" * 16, S0, "/api/test/0", "vt-0")], 1),
            "thread never seen": (good[:2], 1),
            "other process ignored" if mode == "otlp" else "nothing read":
                ((good + [otlp("ff" * 16, S0, "x", "y", pid=1)], 0) if mode == "otlp"
                 else ([], 1)),
        }
        for name, (lines, want) in cases.items():
            rc, out = run(mode, lines)
            if rc != want:
                failures.append(f"{mode}/{name}: exit {rc}, want {want}\n{out}")
    rc, out = run("otlp", [otlp(T0, S0, "/api/test/0", "vt-0"), otlp(T1, S1, "/api/test/1", "vt-1"),
                           "SAMPLE pid=4242 n=3 trace=- span=- thread.name=C2 thread.id=9\n"])
    if rc != 0 or "reports_without_context=3" not in out:
        failures.append(f"unlinked samples not counted:\n{out}")
    base = [otlp(T0, S0, "/api/test/0", "vt-0"), otlp(T1, S1, "/api/test/1", "vt-1")]
    phase = otlp(T0, S0, "/api/test/0", "vt-0").replace(" thread.name", " process.context.label.phase=late thread.name")
    for name, lines, extra, want in (
            ("runtime key named", base + [phase], ["--runtime-key"], 0),
            ("runtime key never named", base, ["--runtime-key"], 1),
            ("runtime key not expected", base + [phase], [], 1),
            ("runtime key optional, named", base + [phase], ["--runtime-key-optional"], 0),
            ("runtime key optional, not named", base, ["--runtime-key-optional"], 0)):
        rc, out = run("otlp", lines, *extra)
        if rc != want:
            failures.append(f"{name}: exit {rc}, want {want}\n{out}")
    for f in failures:
        print("FAIL", f)
    print("RESULT", "FAIL" if failures else "OK")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
