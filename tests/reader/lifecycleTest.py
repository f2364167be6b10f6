#!/usr/bin/env python3
"""Clean stops of the streaming commands: SIGINT, SIGTERM, --duration and the target exiting all
end with exit code 0 and one summary line on stderr (after 'vtctx-reader: attached'), for
`syscalls` and `profile`; for `syscalls` SIGTERM and --duration also while the target issues
more events than the reader can print (the flood goes on after the reader has stopped).

  lifecycleTest.py --reader R --writer ctxWriter_dl --tlsdesc-lib libctxfix_tlsdesc.so
"""
import argparse
import json
import os
import signal
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from readerHarness import LineReader, StreamingReader, check, require_root


def start_writer(args):
    proc = subprocess.Popen([args.writer, "--dlopen", args.tlsdesc_lib], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    out = LineReader(proc.stdout)
    pid = json.loads(out.wait_for(lambda l: '"ready"' in l, 30, "writer ready"))["pid"]
    proc.lines = out
    return proc, pid


def stop_with(args, cmd, how):
    writer, pid = start_writer(args)
    extra = ["--syscall", "write"] if cmd == "syscalls" else []
    if how == "duration":
        extra += ["--duration", "0.5"]
    reader = StreamingReader(args.reader, [cmd, "--pid", str(pid)] + extra)
    try:
        reader.wait_attached()
        if how in ("SIGINT", "SIGTERM"):
            reader.proc.send_signal(getattr(signal, how))
        elif how == "target exit":
            writer.stdin.write("quit\n")
            writer.stdin.flush()
            writer.wait(timeout=30)
        code = reader.proc.wait(timeout=30)
        reader.stdout_thread.join(30)
        reader.stderr.thread.join(30)
    finally:
        reader.kill()
        writer.kill()
        writer.wait()
    check(code == 0, f"{cmd} stopped by {how}: exit {code}")
    summary = [l for l in reader.stderr.all if l.startswith("vtctx-reader: summary:")]
    check(len(summary) == 1, f"{cmd} stopped by {how}: summary lines {summary}")
    want = {"SIGINT": "(signal", "SIGTERM": "(signal", "duration": "(duration",
            "target exit": "(target exited"}[how]
    check(want in summary[0], f"{cmd} stopped by {how}: {summary[0]!r} lacks {want!r}")
    print(f"ok: {cmd} stopped by {how}: {summary[0]}")


FLOOD_MS = 60000  # far longer than a stop may take
STOP_UNDER_FLOOD_S = 20


def stop_under_flood(args, how):
    """SIGTERM or --duration must end `syscalls` while events keep coming faster than it prints,
    not only once they stop: the reader may not stay in the ring buffer's drain loop."""
    writer, pid = start_writer(args)
    extra = ["--syscall", "write"] + (["--duration", "1"] if how == "duration" else [])
    reader = StreamingReader(args.reader, ["syscalls", "--pid", str(pid)] + extra)
    try:
        reader.wait_attached()
        writer.stdin.write(f"flood {FLOOD_MS}\n")
        writer.stdin.flush()
        writer.lines.wait_for(lambda l: '"flooding"' in l, 30, "the flood to start")
        if how == "SIGTERM":
            reader.proc.send_signal(signal.SIGTERM)
        try:
            code = reader.proc.wait(timeout=STOP_UNDER_FLOOD_S)
        except subprocess.TimeoutExpired:
            fail(f"syscalls under a flood did not stop within {STOP_UNDER_FLOOD_S} s of {how}")
        check(writer.poll() is None, "the flood ended before the reader stopped: no evidence")
        reader.stdout_thread.join(30)
        reader.stderr.thread.join(30)
    finally:
        reader.kill()
        writer.kill()
        writer.wait()
    check(code == 0, f"syscalls stopped by {how} under a flood: exit {code}")
    summary = [l for l in reader.stderr.all if l.startswith("vtctx-reader: summary:")]
    check(len(summary) == 1, f"syscalls stopped by {how} under a flood: summary lines {summary}")
    want = "(signal" if how == "SIGTERM" else "(duration"
    check(want in summary[0], f"under a flood, {summary[0]!r} lacks {want!r}")
    fields = dict(w.split("=", 1) for w in summary[0].split() if "=" in w)
    check(int(fields["events"]) > 0, f"no event seen during the flood: {summary[0]!r}")
    print(f"ok: syscalls stopped by {how} under a flood: {summary[0]}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--reader", required=True)
    parser.add_argument("--writer", required=True)
    parser.add_argument("--tlsdesc-lib", required=True)
    args = parser.parse_args()
    require_root()
    for cmd in ("syscalls", "profile"):
        for how in ("SIGINT", "SIGTERM", "duration", "target exit"):
            stop_with(args, cmd, how)
    for how in ("SIGTERM", "duration"):
        stop_under_flood(args, how)
    print("PASS")


if __name__ == "__main__":
    main()
