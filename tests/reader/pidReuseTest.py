#!/usr/bin/env python3
"""The streaming commands never read a process that reuses their target's pid: `syscalls` and
`profile` end with "target exited" once the target exits, and report no event of a new process
that got the same pid, even when the new process runs before the reader has seen the exit.

For each command: a writer (the target) is traced and makes events the reader must report; the
reader is frozen (SIGSTOP: its BPF program keeps running); the target is killed and reaped; a new
writer is given the same pid (ns_last_pid) and makes events (writes, or CPU spin); the reader
is thawed. It must exit 0 by itself with "(target exited" and report no event later than the
target's reaping (BPF timestamps and time.monotonic_ns() share CLOCK_MONOTONIC).

The pid is reused in the reader's (the root) pid namespace: BPF compares global tgids, and a
fresh namespace would give the new process another global pid. Another process on the machine
may take the pid between the write to ns_last_pid and the spawn: then the attempt is repeated.

  pidReuseTest.py --reader R --writer ctxWriter_dl --tlsdesc-lib libctxfix_tlsdesc.so
"""
import json
import os
import signal
import subprocess
import time

from vtctxtest import LineReader, StreamingReader, check, fail, json_lines, root_test_args

ATTEMPTS = 5
EXIT_TIMEOUT_S = 10


class Writer:
    """A ctxWriter, started normally or with a given pid."""

    def __init__(self, args, pid=None):
        argv = [args.writer, "--dlopen", args.tlsdesc_lib]
        in_r, in_w = os.pipe()
        out_r, out_w = os.pipe()
        actions = [(os.POSIX_SPAWN_DUP2, in_r, 0), (os.POSIX_SPAWN_DUP2, out_w, 1)]
        if pid is not None:
            # The next pid the kernel hands out is pid; spawn at once, before another fork can.
            with open("/proc/sys/kernel/ns_last_pid", "w") as f:
                f.write(str(pid - 1))
        self.pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=actions)
        os.close(in_r)
        os.close(out_w)
        self.stdin = os.fdopen(in_w, "w")
        self.lines = LineReader(os.fdopen(out_r))
        self.reaped = False

    def ready(self):
        self.lines.wait_for(lambda l: '"ready"' in l, 30, "writer ready")

    def command(self, line, done):
        self.stdin.write(line + "\n")
        self.stdin.flush()
        self.lines.wait_for(lambda l: done in l, 60, done)

    def kill(self):
        if not self.reaped:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
            self.reaped = True


def attempt(args, cmd):
    """One try; returns False when another process took the pid first."""
    extra = ["--syscall", "write"] if cmd == "syscalls" else ["--hz", "999"]
    busy = ("round 1", '"round_done"') if cmd == "syscalls" else ("spin 300", '"spin_done"')
    target = Writer(args)
    successor = None
    reader = None
    try:
        target.ready()
        reader = StreamingReader(args.reader,
                                 [cmd, "--pid", str(target.pid), "--format", "json"] + extra)
        reader.wait_attached()
        target.command(*busy)  # events the reader must report
        os.kill(reader.proc.pid, signal.SIGSTOP)
        target.kill()
        reaped_ns = time.monotonic_ns()
        successor = Writer(args, pid=target.pid)
        if successor.pid != target.pid:
            print(f"retry: pid {target.pid} was taken by another process")
            return False
        successor.ready()
        successor.command(*busy)  # events the reader must not report
        os.kill(reader.proc.pid, signal.SIGCONT)
        try:
            code = reader.proc.wait(timeout=EXIT_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            code = None
            reader.proc.send_signal(signal.SIGINT)
            reader.proc.wait(timeout=30)
        reader.stdout_thread.join(30)
        reader.stderr.thread.join(30)
        events = json_lines("".join(reader.stdout_chunks))
        late = [e for e in events if e["ts_ns"] >= reaped_ns]
        check(not late, f"{cmd}: {len(late)} of {len(events)} events are of the process that "
                        f"reused pid {target.pid}, e.g. {late[0] if late else None}")
        check(events, f"{cmd}: no event of the target at all: no evidence")
        check(code is not None, f"{cmd}: still running {EXIT_TIMEOUT_S} s after its target exited")
        summary = [l for l in reader.stderr.all if l.startswith("vtctx-reader: summary:")]
        check(code == 0 and len(summary) == 1 and "(target exited" in summary[0],
              f"{cmd}: exit {code}, summary {summary}")
        print(f"ok: {cmd}: pid {target.pid} reused; {len(events)} events, all of the target; "
              f"{summary[0]}")
        return True
    finally:
        if reader is not None:
            if reader.proc.poll() is None:
                os.kill(reader.proc.pid, signal.SIGCONT)
            reader.kill()
        target.kill()
        if successor is not None:
            successor.kill()


def main():
    args = root_test_args("reader", "writer", "tlsdesc-lib")
    for cmd in ("syscalls", "profile"):
        if not any(attempt(args, cmd) for _ in range(ATTEMPTS)):
            fail(f"{cmd}: the pid was taken by another process in each of {ATTEMPTS} attempts")
    print("PASS")


if __name__ == "__main__":
    main()
