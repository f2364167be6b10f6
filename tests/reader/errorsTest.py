#!/usr/bin/env python3
"""vtctx-reader's failure modes: each gives its own exit code and ONE line on stderr.

  2 usage   3 no such process   4 no permission   5 symbol not exported ("is the agent loaded?")
  6 not resolved yet (retry)    7 unsupported access model, or a kernel without BTF
and --help works for every command. A thread already traced by another tracer is not a failure
of `resolve`: that thread is listed with a note, the others are read.
"""
import argparse
import ctypes
import os
import shutil
import subprocess
import tempfile

from vtctxtest import LineReader, check, json_lines, require_root, run_reader
import json

COMMANDS = ("resolve", "syscalls", "profile")


def expect(reader, args, code, needle, what):
    got, out, err = run_reader(reader, args)
    lines = err.strip().splitlines()
    check(got == code, f"{what}: exit {got}, expected {code} (stderr: {err.strip()!r})")
    check(len(lines) == 1 and lines[0].startswith("vtctx-reader: "),
          f"{what}: expected one 'vtctx-reader: ...' line on stderr, got {lines!r}")
    check(needle in lines[0], f"{what}: {needle!r} not in {lines[0]!r}")
    check(out == "", f"{what}: unexpected stdout {out!r}")
    print(f"ok: {what}: exit {code}: {lines[0]}")


def with_process(cmd, fn, env=None):
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
    try:
        ready = json.loads(LineReader(proc.stdout).wait_for(lambda l: '"ready"' in l, 30,
                                                             f"{cmd[0]} ready"))
        fn(ready["pid"])
    finally:
        proc.kill()
        proc.wait()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--reader", required=True)
    parser.add_argument("--writer", required=True, help="ctxWriter_dl")
    parser.add_argument("--hidden-lib", required=True, help="libctxfix_hidden.so")
    parser.add_argument("--tlsdesc-lib", required=True, help="libctxfix_tlsdesc.so")
    parser.add_argument("--map-only", required=True, help="mapOnly fixture")
    args = parser.parse_args()
    require_root()
    r = args.reader

    # Usage.
    for cmd in COMMANDS:
        code, out, err = run_reader(r, [cmd, "--help"])
        check(code == 0 and out.startswith(f"usage: vtctx-reader {cmd}"),
              f"{cmd} --help: exit {code}, stdout {out[:80]!r}")
        expect(r, [cmd], 2, "--pid is required", f"{cmd} without --pid")
        expect(r, [cmd, "--pid", "1", "--bogus"], 2, "unknown option --bogus", f"{cmd} --bogus")
    expect(r, ["resolve", "--pid", "1", "--format", "xml"], 2, "--format", "bad --format")
    expect(r, ["syscalls", "--pid", "1"], 2, "--syscall is required", "syscalls without --syscall")
    expect(r, ["syscalls", "--pid", "1", "--syscall", "nosuch"], 2, "unknown syscall",
           "unknown syscall name")
    expect(r, ["profile", "--pid", "1", "--hz", "0"], 2, "--hz", "bad --hz")
    expect(r, ["profile", "--pid", "1", "--group-by", "http.route", "--format", "json"], 2,
           "--group-by applies to --format table", "--group-by with json")
    expect(r, ["profile", "--pid", "1", "--folded-attrs", "http.route"], 2,
           "--folded-attrs applies to --format folded", "--folded-attrs with table")
    expect(r, ["profile", "--pid", "1", "--group-by", "a,,b"], 2, "comma-separated names",
           "empty --group-by name")
    expect(r, ["profile", "--pid", "1", "--group-by", "trace,a"], 2, "not both",
           "--group-by mixing trace and attributes")
    code, _, err = run_reader(r, ["frobnicate"])
    check(code == 2 and "unknown command" in err, f"unknown command: exit {code}")

    # No such process: pid_max is never a valid pid.
    with open("/proc/sys/kernel/pid_max") as f:
        gone = f.read().strip()
    for cmd in COMMANDS:
        extra = ["--syscall", "write"] if cmd == "syscalls" else []
        expect(r, [cmd, "--pid", gone] + extra, 3, "no such process", f"{cmd} on a missing pid")

    # Not exported: a process without the symbol (the writer before any library is loaded
    # cannot be held, so use a plain process: this test's own interpreter).
    me = str(os.getpid())
    for cmd in COMMANDS:
        extra = ["--syscall", "write"] if cmd == "syscalls" else []
        expect(r, [cmd, "--pid", me] + extra, 5, "is the agent loaded?", f"{cmd} without the symbol")

    # Unsupported: exported, but accessed through a hidden alias (no relocation names it).
    with_process([args.writer, "--dlopen", args.hidden_lib],
                 lambda pid: expect(r, ["resolve", "--pid", str(pid)], 7, "unsupported",
                                    "hidden-alias writer"))

    # Not resolved yet: the library is mapped but its descriptor not written (mid-dlopen).
    with_process([args.map_only, args.tlsdesc_lib],
                 lambda pid: expect(r, ["resolve", "--pid", str(pid)], 6, "retry",
                                    "mapped but unrelocated library"))

    # Not a failure: a thread already ptrace'd by someone else (here: this test) is listed unread
    # with a note; the other threads are read.
    def already_traced(pid):
        libc = ctypes.CDLL(None, use_errno=True)
        PTRACE_SEIZE, PTRACE_DETACH = 0x4206, 17
        check(libc.ptrace(PTRACE_SEIZE, pid, None, None) == 0,
              f"test could not seize {pid}: errno {ctypes.get_errno()}")
        try:
            code, out, err = run_reader(r, ["resolve", "--pid", str(pid), "--format", "json"])
        finally:
            libc.ptrace(PTRACE_DETACH, pid, None, None)
        check(code == 0, f"resolve with a traced thread: exit {code}, stderr {err.strip()!r}")
        threads = [o for o in json_lines(out) if "tid" in o]
        traced = [t for t in threads if t["tid"] == pid]
        check(len(traced) == 1 and traced[0]["context"] == "no_tp" and
              f"already traced by pid {os.getpid()}" in traced[0].get("note", ""),
              f"traced thread {pid}: {traced}")
        read = [t for t in threads if t["tid"] != pid and t["context"] == "ok" and t["valid"] == 1]
        check(len(read) >= 3, f"the untraced threads were not read: {threads}")
        print(f"ok: a traced thread is a note: {traced[0]['note']}; {len(read)} others read")
    with_process([args.writer, "--dlopen", args.tlsdesc_lib], already_traced)

    # No BTF: hide /sys/kernel/btf in a private mount namespace.
    def without_btf(pid):
        for cmd in ("syscalls", "profile"):
            extra = ["--syscall", "write"] if cmd == "syscalls" else []
            got = subprocess.run(
                ["unshare", "-m", "sh", "-c", 'mount -t tmpfs none /sys/kernel/btf && exec "$@"',
                 "sh", r, cmd, "--pid", str(pid)] + extra,
                capture_output=True, text=True, timeout=30)
            lines = got.stderr.strip().splitlines()
            check(got.returncode == 7 and len(lines) == 1 and "no BTF" in lines[0],
                  f"{cmd} without BTF: exit {got.returncode}, stderr {lines!r}")
            print(f"ok: {cmd} without BTF: exit 7: {lines[0]}")
    with_process([args.writer, "--dlopen", args.tlsdesc_lib], without_btf)

    # No permission: an unprivileged user (nobody) inspecting a root process, or loading BPF.
    tmp = tempfile.mkdtemp()
    try:
        os.chmod(tmp, 0o755)
        copy = os.path.join(tmp, "vtctx-reader")
        shutil.copy(r, copy)
        os.chmod(copy, 0o755)
        nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                  "--inh-caps=-all", copy]
        def as_nobody(pid):
            for cmd, needle in (("resolve", "no permission"), ("syscalls", "needs root"),
                                ("profile", "needs root")):
                extra = ["--syscall", "write"] if cmd == "syscalls" else []
                got = subprocess.run(nobody + [cmd, "--pid", str(pid)] + extra,
                                     capture_output=True, text=True, timeout=30)
                lines = got.stderr.strip().splitlines()
                check(got.returncode == 4 and len(lines) == 1 and needle in lines[0],
                      f"{cmd} as nobody: exit {got.returncode}, stderr {lines!r}")
                print(f"ok: {cmd} as nobody: exit 4: {lines[0]}")
        with_process([args.writer, "--dlopen", args.tlsdesc_lib], as_nobody)
    finally:
        shutil.rmtree(tmp)
    print("PASS")


if __name__ == "__main__":
    main()
