"""A command run under a memory limit, as the kernel enforces it: a memory cgroup of its own
(cgroup v2 where the memory controller is on the unified hierarchy, else v1's memory hierarchy;
a machine with a v1/v2 hybrid, like this project's, has it on v1). Everything the command forks
is in the group too. The result says how it ended, how long it took, its peak memory (the group's
high-water mark, page cache included; and the command's own peak RSS) and whether the kernel's
OOM killer ended something in the group."""
import os
import subprocess
import threading
import time


def _own_cgroup(controller):
    for line in open("/proc/self/cgroup"):
        _, controllers, path = line.rstrip("\n").split(":", 2)
        if controller in controllers.split(",") or (controller == "" and controllers == ""):
            return path
    return None


def _cgroup_parent():
    """(version, directory under which a group with a memory limit can be made)."""
    for root in ("/sys/fs/cgroup", "/sys/fs/cgroup/unified"):
        try:
            if "memory" in open(os.path.join(root, "cgroup.controllers")).read().split():
                return 2, os.path.join(root, _own_cgroup("").lstrip("/"))
        except OSError:
            pass
    v1 = "/sys/fs/cgroup/memory"
    if os.path.isdir(v1):
        return 1, os.path.join(v1, (_own_cgroup("memory") or "/").lstrip("/"))
    raise RuntimeError("no memory cgroup controller on this machine")


def _read_field(path, key):
    for line in open(path):
        parts = line.split()
        if len(parts) == 2 and parts[0] == key:
            return int(parts[1])
    return 0


class Limited:
    """How a run under a limit ended: returncode (negative: a signal), stdout, stderr, seconds,
    peak_bytes (the group's high-water mark; None where the kernel keeps none), max_rss_bytes (the
    command's own), oom_kills."""

    def __init__(self, **fields):
        self.__dict__.update(fields)

    def describe(self):
        peak = "n/a" if self.peak_bytes is None else f"{self.peak_bytes / 2**20:.0f} MiB"
        return (f"exit {self.returncode} after {self.seconds:.1f} s, group peak {peak}, "
                f"peak RSS {self.max_rss_bytes / 2**20:.0f} MiB, OOM kills {self.oom_kills}")


def run_limited(argv, limit_bytes, timeout):
    """Runs argv with at most `limit_bytes` of memory (no swap past it); kills it after `timeout`
    seconds (returncode -9, timed_out set). Returns a Limited."""
    version, parent = _cgroup_parent()
    group = os.path.join(parent, f"vtctx-test-{os.getpid()}-{time.monotonic_ns()}")
    os.mkdir(group)
    try:
        if version == 2:
            open(os.path.join(group, "memory.max"), "w").write(str(limit_bytes))
            if os.path.exists(os.path.join(group, "memory.swap.max")):
                open(os.path.join(group, "memory.swap.max"), "w").write("0")
        else:
            open(os.path.join(group, "memory.limit_in_bytes"), "w").write(str(limit_bytes))
            if os.path.exists(os.path.join(group, "memory.memsw.limit_in_bytes")):
                open(os.path.join(group, "memory.memsw.limit_in_bytes"), "w").write(
                    str(limit_bytes))
        procs = os.path.join(group, "cgroup.procs")

        def enter():
            with open(procs, "w") as f:
                f.write(str(os.getpid()))

        start = time.monotonic()
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                preexec_fn=enter)
        chunks = {"out": b"", "err": b""}

        def drain(stream, key):
            chunks[key] = stream.read()

        readers = [threading.Thread(target=drain, args=(proc.stdout, "out"), daemon=True),
                   threading.Thread(target=drain, args=(proc.stderr, "err"), daemon=True)]
        for r in readers:
            r.start()
        # wait4 for the command's own peak RSS; polled, so that the timeout can kill it.
        timed_out = False
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid == proc.pid:
                break
            if time.monotonic() - start > timeout and not timed_out:
                timed_out = True
                proc.kill()
            time.sleep(0.02)
        proc.returncode = os.waitstatus_to_exitcode(status)
        seconds = time.monotonic() - start
        for r in readers:
            r.join(30)
        out, err = chunks["out"], chunks["err"]
        max_rss = usage.ru_maxrss * 1024
        if version == 2:
            peak_file = os.path.join(group, "memory.peak")
            peak = int(open(peak_file).read()) if os.path.exists(peak_file) else None
            oom = _read_field(os.path.join(group, "memory.events"), "oom_kill")
        else:
            peak = int(open(os.path.join(group, "memory.max_usage_in_bytes")).read())
            oom = _read_field(os.path.join(group, "memory.oom_control"), "oom_kill")
        return Limited(returncode=proc.returncode, stdout=out, stderr=err, seconds=seconds,
                       peak_bytes=peak, max_rss_bytes=max_rss, oom_kills=oom,
                       timed_out=timed_out)
    finally:
        for _ in range(100):
            try:
                os.rmdir(group)
                break
            except OSError:
                time.sleep(0.05)  # the last task is still leaving the group
