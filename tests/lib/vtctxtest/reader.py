"""Runs of vtctx-reader: one-shot commands (run_reader), and the streaming ones (syscalls,
profile) started, waited on until attached, then stopped with SIGINT
(`with attached_reader(...)`)."""
import contextlib
import json
import signal
import subprocess
import threading

from vtctxtest.checks import check, fail, json_lines
from vtctxtest.processes import ProcessError
from vtctxtest.targets import LineReader, start_target


def run_reader(reader_path, args, timeout=60):
    """Runs a one-shot reader command; returns (exit code, stdout, stderr)."""
    proc = subprocess.run([reader_path] + args, capture_output=True, text=True, timeout=timeout)
    return proc.returncode, proc.stdout, proc.stderr


def summary_fields(lines):
    """The key=value fields of the one "vtctx-reader: summary:" line among a run's stderr
    lines; raises ProcessError unless there is exactly one."""
    found = [l for l in lines if l.startswith("vtctx-reader: summary:")]
    if len(found) != 1:
        raise ProcessError(f"expected one reader summary line, got {found}")
    return dict(word.split("=", 1) for word in found[0].split() if "=" in word)


class StreamingReader:
    """A long-running vtctx-reader (syscalls/profile): started, waited on until attached, then
    stopped with SIGINT; stdout is collected whole, unless collect_stdout is False (then the
    caller owns proc.stdout)."""

    def __init__(self, reader_path, args, collect_stdout=True):
        self.proc = start_target([reader_path] + args, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE)
        self.stderr = LineReader(self.proc.stderr, echo_prefix="reader: ")
        self.stdout_chunks = []
        self.stdout_thread = threading.Thread(
            target=lambda: self.stdout_chunks.append(self.proc.stdout.read()), daemon=True)
        if collect_stdout:
            self.stdout_thread.start()
        self.output = None

    def wait_attached(self, timeout=60):
        def attached(line):
            if self.proc.poll() is not None and line is None:
                return False
            return line == "vtctx-reader: attached"
        self.stderr.wait_for(attached, timeout, "'vtctx-reader: attached'")

    def stop(self, timeout=60):
        """SIGINT, then the exit (which must be 0); returns the collected stdout."""
        self.proc.send_signal(signal.SIGINT)
        try:
            code = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            fail("vtctx-reader did not exit after SIGINT")
        self.stdout_thread.join(timeout)
        self.stderr.thread.join(timeout)
        check(code == 0, f"vtctx-reader exited with {code} after SIGINT")
        self.output = "".join(self.stdout_chunks)
        return self.output

    def summary(self):
        try:
            return summary_fields(self.stderr.all)
        except ProcessError as e:
            fail(str(e))

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


@contextlib.contextmanager
def attached_reader(reader_path, args, collect_stdout=True, attach_timeout=60):
    """`with attached_reader(R, ["profile", ...]) as r:` starts the reader and waits until it is
    attached; the block runs the workload; leaving it stops the reader (SIGINT, exit 0 checked)
    and puts its stdout in r.output. A block that raises kills the reader instead."""
    run = StreamingReader(reader_path, args, collect_stdout)
    try:
        run.wait_attached(attach_timeout)
        yield run
        run.stop()
    finally:
        run.kill()


def run_markers(jvm, reader_run, timeout=300):
    """Tells a marker-writing test JVM (a JvmTarget running VtMarkers or VtAttrs) to go, waits for
    its "done" line, then stops the attached streaming `reader_run`. Returns (the done object,
    the reader's JSON events, its summary fields)."""
    jvm.send("go")
    done = json.loads(jvm.out.wait_for(lambda l: '"done"' in l, timeout, "JVM done"))
    events = json_lines(reader_run.stop())
    return done, events, reader_run.summary()


def markers_under_syscalls(reader_path, jvm, pid):
    """run_markers under `syscalls --pid PID --syscall write --format json`, the reader killed if
    the run fails: (the done object, the reader's JSON events, its summary fields)."""
    run = StreamingReader(reader_path, ["syscalls", "--pid", str(pid), "--syscall", "write",
                                        "--format", "json"])
    try:
        run.wait_attached()
        return run_markers(jvm, run)
    finally:
        run.kill()
