#!/usr/bin/env python3
"""--wait, the late-attach workflow: the reader is started on a JVM that has no agent yet, says
once on stderr that it waits, and goes on by itself when the agent is attached (jcmd
JVMTI.agent_load).
`resolve --wait=S` then resolves libvtctx.so; `syscalls --wait` attaches and attributes every
marker the JVM's virtual threads write after the attach to the context each published. While
waiting, a target that exits ends the reader with exit 3 at once; `--wait=S` gives up after S
seconds with the not-exported error (exit 5).

  jvmWaitTest.py --reader R --java J --jcmd JCMD --agent libvtctx.so --classes DIR
"""
import subprocess
import time

from jvmTest import match_markers
from vtctxtest import (JvmTarget, LineReader, StreamingReader, check, json_lines, root_test_args,
                       run_markers, run_reader)

WAITING = "vtctx-reader: waiting for the agent"
THREADS, ITERATIONS = 200, 5


def late_attach(args):
    jvm = JvmTarget([args.java, "-XX:+EnableDynamicAgentLoading", "-cp", args.classes, "VtMarkers",
                     str(THREADS), str(ITERATIONS), "late"])
    resolve = streaming = None
    try:
        ready = jvm.wait_json()
        pid, base = ready["pid"], ready["base"]
        resolve = subprocess.Popen(
            [args.reader, "resolve", "--pid", str(pid), "--wait=120", "--format", "json"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        resolve_err = LineReader(resolve.stderr, echo_prefix="resolve: ")
        streaming = StreamingReader(args.reader, ["syscalls", "--pid", str(pid), "--syscall",
                                                  "write", "--format", "json", "--wait"])
        resolve_err.wait_for(lambda l: l.startswith(WAITING), 60, "resolve's waiting line")
        streaming.stderr.wait_for(lambda l: l.startswith(WAITING), 60, "syscalls' waiting line")
        check(resolve.poll() is None, f"resolve exited {resolve.returncode} before the attach")
        check(streaming.proc.poll() is None, "syscalls exited before the attach")

        attach = subprocess.run([args.jcmd, str(pid), "JVMTI.agent_load", args.agent],
                                capture_output=True, text=True, timeout=120)
        check(attach.returncode == 0 and "return code: 0" in attach.stdout,
              f"jcmd JVMTI.agent_load: {attach.stdout} {attach.stderr}")
        objects = json_lines(resolve.communicate(timeout=60)[0])
        check(resolve.returncode == 0, f"resolve --wait exited {resolve.returncode}")
        check(objects and objects[0]["library"].endswith("/libvtctx.so"),
              f"resolve --wait found {objects[:1]}")
        waits = [l for l in resolve_err.all if l.startswith(WAITING)]
        check(len(waits) == 1, f"resolve printed {len(waits)} waiting lines")
        print(f"ok: resolve --wait resolved {objects[0]['library']} after the attach")

        streaming.wait_attached()
        done, events, summary = run_markers(jvm, streaming)
    finally:
        for proc in (resolve, streaming and streaming.proc):
            if proc is not None and proc.poll() is None:
                proc.kill()
        jvm.stop()
    total = done["markers"]
    seen, wrong, _ = match_markers(events, base, total, ITERATIONS)
    check(summary.get("dropped") == "0", "the reader dropped events")
    check(len(seen) == total and not wrong,
          f"syscalls --wait: {total - len(seen)} of {total} markers missing, {len(wrong)} "
          f"misattributed, e.g. {wrong[:1]}")
    print(f"ok: syscalls --wait attached after the attach and attributed all {total} markers")


def target_exits_while_waiting(args):
    """Exit 3 the moment the target exits; --wait=S gives up with exit 5. A process without the
    agent: any will do."""
    for cmd in ("resolve", "syscalls", "profile"):
        extra = ["--syscall", "write"] if cmd == "syscalls" else []
        target = subprocess.Popen(["sleep", "600"])
        try:
            started = time.monotonic()
            code, _, err = run_reader(args.reader, [cmd, "--pid", str(target.pid), "--wait=1"] +
                                      extra)
            waited = time.monotonic() - started
            check(code == 5 and "(waited 1." in err and waited >= 1,
                  f"{cmd} --wait=1: exit {code} after {waited:.1f} s, stderr {err!r}")
            reader = subprocess.Popen([args.reader, cmd, "--pid", str(target.pid), "--wait"] +
                                      extra, stderr=subprocess.PIPE, text=True)
            err = LineReader(reader.stderr)
            err.wait_for(lambda l: l.startswith(WAITING), 30, f"{cmd}'s waiting line")
            target.kill()
            killed = time.monotonic()
            code = reader.wait(timeout=30)
            took = time.monotonic() - killed
            err.thread.join(10)
            last = err.all[-1] if err.all else ""
            check(code == 3 and "exited while waiting for the agent" in last and took < 2,
                  f"{cmd} --wait on an exiting target: exit {code} after {took:.1f} s, {last!r}")
            print(f"ok: {cmd} --wait: exit 5 after {waited:.1f} s at --wait=1; exit 3 "
                  f"{took:.2f} s after the target exited")
        finally:
            target.kill()
            target.wait()


def main():
    args = root_test_args("reader", "java", "jcmd", "agent", "classes")
    target_exits_while_waiting(args)
    late_attach(args)
    print("PASS")


if __name__ == "__main__":
    main()
