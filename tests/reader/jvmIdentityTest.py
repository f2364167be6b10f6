#!/usr/bin/env python3
"""vtctx-reader and the identity channel, in real JVMs (the marker checks themselves are
jvmTest.py's, run with channel=identity by reader.jvm_vthreads_identity*):

  - late_attach: `syscalls --attach --channel identity` loads the agent without JVMTI into a
    running JVM and reads every marker its virtual threads write afterwards, each with its own
    context; HotSpot's JVMTI notification byte is still 0 afterwards.
  - verify: `verify` on a carrier-channel JVM: both channels read at every sample, no
    disagreement (exit 0); against fault=identity-index (the index maps threads to other
    threads' records) it must find disagreements (exit 9).
  - refusals, one line each, exit 7: Java 21 under ZGC (no _monitor_owner_id, objects move while
    Java runs); a process whose writer names no thread index (not vtctx); JDK 25 under ZGC is
    followed (_monitor_owner_id needs no object).

  jvmIdentityTest.py --reader R --java J --java21 J21 --agent libvtctx.so --classes DIR
                     --fake-writer libctxfix_agent.so
"""
import subprocess

from jvmTest import match_markers
from vtctxtest import (JvmTarget, StreamingReader, check, json_lines, require_root,
                       required_args_parser, run_markers, run_reader)
from vtctxtest.vtmsNotifyByte import notify_byte

THREADS, ITERATIONS = 400, 5


def start_markers(java, classes, agent_flag=None, jvm_flags=(), late=False):
    cmd = [java, "-XX:+EnableDynamicAgentLoading", *jvm_flags]
    if agent_flag:
        cmd.append(agent_flag)
    cmd += ["-cp", classes, "VtMarkers", str(THREADS), str(ITERATIONS)] + (["late"] if late else [])
    jvm = JvmTarget(cmd)
    ready = jvm.wait_json()
    return jvm, ready["pid"], ready["base"]


def check_markers(done, events, summary, base, what):
    total = done["markers"]
    seen, wrong, _ = match_markers(events, base, total, ITERATIONS)
    print(f"{what}: markers {total}, seen {len(seen)}, misattributed {len(wrong)}, {summary}")
    check(summary.get("dropped") == "0", f"{what}: the reader dropped events")
    check(len(seen) == total, f"{what}: {total - len(seen)} markers missing")
    check(not wrong, f"{what}: {len(wrong)} markers misattributed, e.g. {wrong[:1]}")


def late_attach(args):
    jvm, pid, base = start_markers(args.java, args.classes, late=True)
    reader = None
    try:
        check(notify_byte(pid) == 0, "late_attach: notification byte 0 before the attach")
        reader = StreamingReader(args.reader, [
            "syscalls", "--pid", str(pid), "--syscall", "write", "--format", "json", "--attach",
            "--agent", args.agent, "--channel", "identity"])
        reader.wait_attached(120)
        check(any("identity channel: JavaThread::_monitor_owner_id" in l for l in reader.stderr.all),
              f"late_attach: the reader names the identity channel: {reader.stderr.all}")
        done, events, summary = run_markers(jvm, reader)
        check_markers(done, events, summary, base, "late_attach")
        check(notify_byte(pid) == 0, "late_attach: notification byte still 0 after the attach")
    finally:
        if reader:
            reader.kill()
        jvm.stop()
    print("late_attach: ok")


def verify(args, agent_options, want_code):
    # 16 virtual threads with a context each, burning CPU and hopping carriers for 8 s.
    with JvmTarget([args.java, f"-agentpath:{args.agent}={agent_options}", "-cp", args.classes,
                    "VtSpin", "16", "8000"]) as jvm:
        pid = jvm.wait_json()["pid"]
        jvm.send("go")
        code, text, err = run_reader(args.reader, ["verify", "--pid", str(pid), "-d", "4",
                                                   "--hz", "499"], timeout=120)
    print(text)
    check(code == want_code, f"verify with {agent_options}: exit {code}, want {want_code}: {err}")
    if want_code == 7:
        last = err.strip().splitlines()[-1] if err.strip() else ""
        check(last.startswith("vtctx-reader: verify: ") and "thread_index=on" in last,
              f"verify without an index: one line saying what to do: {err}")
        print(f"verify ({agent_options}): refused: {err.strip()}")
        return
    samples = int(text.split(" samples")[0].split()[-1]) if " samples" in text else 0
    check(samples > 0, "verify took no sample")
    if want_code == 0:
        check("disagreements=0" in err and "result: OK" in text, f"verify: {err}")
    else:
        check("DISAGREE tid=" in text, "verify with a faulty index printed no disagreement")
        check(err.strip().splitlines()[-1].startswith("vtctx-reader: verify: the channels named"),
              f"verify: one last line with the reason: {err}")
    print(f"verify ({agent_options}): ok")


def refusals(args):
    # Java 21 under ZGC: refused (its Thread objects move while Java runs).
    jvm, pid, _ = start_markers(args.java21, args.classes,
                                f"-agentpath:{args.agent}=channel=identity", ["-XX:+UseZGC"])
    with jvm:
        code, _, err = run_reader(args.reader, ["syscalls", "--pid", str(pid), "--syscall",
                                                "write", "-d", "1"])
    last = err.strip().splitlines()[-1] if err.strip() else ""
    check(code == 7 and "collector (ZGC)" in last, f"Java 21 ZGC: exit {code}: {err}")
    # JDK 25 under ZGC: _monitor_owner_id needs no object: followed.
    jvm, pid, _ = start_markers(args.java, args.classes,
                                f"-agentpath:{args.agent}=channel=identity", ["-XX:+UseZGC"])
    with jvm:
        code, text, err = run_reader(args.reader, ["resolve", "--pid", str(pid), "--format",
                                                   "json"])
    threads = [o for o in json_lines(text) if "tid" in o] if code == 0 else []
    check(code == 0 and any(t.get("java_thread_id") for t in threads),
          f"JDK ZGC: resolve exit {code}, threads naming their Java thread: {err}")
    # A writer that is not vtctx names no thread index.
    jvm = JvmTarget([args.java, f"-agentpath:{args.fake_writer}", "-cp", args.classes,
                     "IdleTarget"], stderr=subprocess.DEVNULL)
    try:
        jvm.out.wait_for(lambda l: l.startswith("READY") or l.startswith("{"), 60, "IdleTarget")
        code, _, err = run_reader(args.reader, ["resolve", "--pid", str(jvm.pid), "--channel",
                                                "identity"])
    finally:
        jvm.proc.kill()
        jvm.proc.wait()
    check(code == 7 and "thread index" in err and len(err.strip().splitlines()) <= 3,
          f"foreign writer: exit {code}: {err}")
    print("refusals: ok")


def main():
    parser = required_args_parser("reader", "java", "java21", "agent", "classes", "fake-writer")
    args = parser.parse_args()
    require_root()
    late_attach(args)
    verify(args, "log=error,thread_index=on", 0)
    verify(args, "log=error,thread_index=on,fault=identity-index", 9)
    verify(args, "log=error", 7)  # the carrier channel keeps no index by default: refused
    refusals(args)
    print("PASS")


if __name__ == "__main__":
    main()
