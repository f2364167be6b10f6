#!/usr/bin/env python3
"""Clean stops of the streaming commands: SIGINT, SIGTERM, SIGHUP, SIGPIPE, --duration, the
target exiting and stdout closed by its reader all end with exit code 0 and one summary line on
stderr (after 'vtctx-reader: attached'), for `syscalls` and `profile`. stdout closes behind
`| head -1` while events are printed, and also while nothing is printed (the reader of the pipe
goes away: nothing could ever be read). For `syscalls` SIGTERM and --duration also stop it while
the target issues more events than the reader can print (the flood goes on after the reader has
stopped).

  lifecycleTest.py --reader R --writer ctxWriter_dl --tlsdesc-lib libctxfix_tlsdesc.so
"""
import json
import signal
import subprocess

from vtctxtest import LineReader, StreamingReader, check, fail, root_test_args


def start_writer(args):
    proc = subprocess.Popen([args.writer, "--dlopen", args.tlsdesc_lib], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    out = LineReader(proc.stdout)
    pid = json.loads(out.wait_for(lambda l: '"ready"' in l, 30, "writer ready"))["pid"]
    proc.lines = out
    return proc, pid


SIGNALS = ("SIGINT", "SIGTERM", "SIGHUP", "SIGPIPE")
STOPPED_BY = {**{name: "(signal" for name in SIGNALS}, "duration": "(duration",
              "target exit": "(target exited", "closed stdout": "(stdout closed"}


def run_and_stop(args, cmd, extra, how, act, timeout, label, collect_stdout=True):
    """Runs `cmd` on a fresh writer; once it is attached, act(writer, reader) makes it stop. Checks
    that it exits 0 within `timeout` s with one summary line naming how it stopped. Returns that
    line and whether the writer was still running when the reader had exited."""
    writer, pid = start_writer(args)
    reader = StreamingReader(args.reader, [cmd, "--pid", str(pid)] + extra, collect_stdout)
    try:
        reader.wait_attached()
        act(writer, reader)
        try:
            code = reader.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            fail(f"{label}: no stop within {timeout} s")
        writer_running = writer.poll() is None
        if collect_stdout:
            reader.stdout_thread.join(30)
        reader.stderr.thread.join(30)
    finally:
        reader.kill()
        writer.kill()
        writer.wait()
    check(code == 0, f"{label}: exit {code}")
    summary = [l for l in reader.stderr.all if l.startswith("vtctx-reader: summary:")]
    check(len(summary) == 1, f"{label}: summary lines {summary}")
    check(STOPPED_BY[how] in summary[0], f"{label}: {summary[0]!r} lacks {STOPPED_BY[how]!r}")
    print(f"ok: {label}: {summary[0]}")
    return summary[0], writer_running


def stop_with(args, cmd, how):
    extra = ["--syscall", "write"] if cmd == "syscalls" else []
    if how == "duration":
        extra += ["--duration", "0.5"]

    def act(writer, reader):
        if how in SIGNALS:
            reader.proc.send_signal(getattr(signal, how))
        elif how == "target exit":
            writer.stdin.write("quit\n")
            writer.stdin.flush()
            writer.wait(timeout=30)

    run_and_stop(args, cmd, extra, how, act, 30, f"{cmd} stopped by {how}")


FLOOD_MS = 60000  # far longer than a stop may take
STOP_UNDER_FLOOD_S = 20


def stop_under_flood(args, how):
    """SIGTERM or --duration must end `syscalls` while events keep coming faster than it prints,
    not only once they stop: the reader may not stay in the ring buffer's drain loop."""
    extra = ["--syscall", "write"] + (["--duration", "1"] if how == "duration" else [])

    def act(writer, reader):
        writer.stdin.write(f"flood {FLOOD_MS}\n")
        writer.stdin.flush()
        writer.lines.wait_for(lambda l: '"flooding"' in l, 30, "the flood to start")
        if how == "SIGTERM":
            reader.proc.send_signal(signal.SIGTERM)

    summary, flooding = run_and_stop(args, "syscalls", extra, how, act, STOP_UNDER_FLOOD_S,
                                     f"syscalls stopped by {how} under a flood")
    check(flooding, "the flood ended before the reader stopped: no evidence")
    fields = dict(w.split("=", 1) for w in summary.split() if "=" in w)
    check(int(fields["events"]) > 0, f"no event seen during the flood: {summary!r}")


def stop_by_closed_stdout(args, cmd, busy):
    """`cmd --format json | head -1` while the target makes events (busy: a writer command that
    keeps it making them), or, busy None, stdout closed while nothing is printed."""
    extra = (["--syscall", "write"] if cmd == "syscalls" else ["--hz", "999"]) + ["--format",
                                                                                  "json"]
    head = None

    def act(writer, reader):
        nonlocal head
        if busy is None:
            reader.proc.stdout.close()
            return
        head = subprocess.Popen(["head", "-1"], stdin=reader.proc.stdout, stdout=subprocess.PIPE,
                                text=True)
        reader.proc.stdout.close()  # head holds the pipe's only read end
        writer.stdin.write(busy + "\n")
        writer.stdin.flush()

    label = f"{cmd} stopped by a closed stdout " + ("behind | head -1" if busy else "(idle)")
    try:
        _, writer_running = run_and_stop(args, cmd, extra, "closed stdout", act,
                                         STOP_UNDER_FLOOD_S, label, collect_stdout=False)
        if busy is not None:
            line = head.communicate(timeout=30)[0]
            check(line.startswith("{"), f"{label}: head read {line!r}")
            check(writer_running, f"{label}: the target stopped making events first: no evidence")
    finally:
        if head is not None and head.poll() is None:
            head.kill()


def main():
    args = root_test_args("reader", "writer", "tlsdesc-lib")
    for cmd in ("syscalls", "profile"):
        for how in SIGNALS + ("duration", "target exit"):
            stop_with(args, cmd, how)
    for how in ("SIGTERM", "duration"):
        stop_under_flood(args, how)
    stop_by_closed_stdout(args, "syscalls", f"flood {FLOOD_MS}")
    stop_by_closed_stdout(args, "profile", f"spin {FLOOD_MS}")
    for cmd in ("syscalls", "profile"):
        stop_by_closed_stdout(args, cmd, None)
    print("PASS")


if __name__ == "__main__":
    main()
