"""Helpers shared by the reader's Python test drivers: running vtctx-reader, waiting for its
'attached' line, stopping it cleanly, parsing JSON lines. Every wait has a deadline and fails the
test with a message; nothing sleeps on a guess."""
import argparse
import json
import os
import signal
import subprocess
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts",
                                "lib"))
from processes import LineStream, ProcessError  # noqa: E402

SKIP = 77  # ctest SKIP_RETURN_CODE


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def check(condition, message):
    if not condition:
        fail(message)


def require_root():
    if os.geteuid() != 0:
        print("SKIP: needs root (BPF, ptrace of other processes)", file=sys.stderr)
        sys.exit(SKIP)


class LineReader(LineStream):
    """A pipe read line by line (scripts/lib/processes.py); a wait that runs out fails the test."""

    def __init__(self, stream, echo_prefix=None):
        super().__init__(stream, echo_prefix=echo_prefix)

    def wait_for(self, predicate, timeout, what):
        try:
            return super().wait_for(predicate, timeout, what)
        except ProcessError as e:
            fail(str(e))


def required_args_parser(*names):
    """An argument parser with the driver's required `--name VALUE` arguments (args.name, dashes
    as underscores); the caller adds its own options."""
    parser = argparse.ArgumentParser()
    for name in names:
        parser.add_argument(f"--{name}", required=True)
    return parser


def root_test_args(*names):
    """Parses the driver's required `--name VALUE` arguments, then skips the test without root."""
    args = required_args_parser(*names).parse_args()
    require_root()
    return args


def run_markers(jvm, out, reader, timeout=300):
    """Tells a marker-writing test JVM (VtMarkers, VtAttrs) to go, waits for its "done" line, then
    stops the attached streaming `reader`. Returns (the done object, the reader's JSON events, its
    summary fields)."""
    jvm.stdin.write("go\n")
    jvm.stdin.flush()
    done = json.loads(out.wait_for(lambda l: '"done"' in l, timeout, "JVM done"))
    events = json_lines(reader.stop())
    return done, events, reader.summary()


def run_reader(reader, args, timeout=60):
    """Runs a one-shot reader command; returns (exit code, stdout, stderr)."""
    proc = subprocess.run([reader] + args, capture_output=True, text=True, timeout=timeout)
    return proc.returncode, proc.stdout, proc.stderr


def stop_jvm(jvm):
    """Asks a test JVM (reading commands on stdin) to quit, and kills it if it does not within 60 s."""
    if jvm.poll() is not None:
        return
    try:
        jvm.stdin.write("quit\n")
        jvm.stdin.flush()
        jvm.wait(timeout=60)
    except (BrokenPipeError, subprocess.TimeoutExpired):
        jvm.kill()


def json_lines(text):
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line:
            out.append(json.loads(line))
    return out


class StreamingReader:
    """A long-running vtctx-reader (syscalls/profile): started, waited on until attached, then
    stopped with SIGINT; stdout is collected whole, unless collect_stdout is False (then the
    caller owns proc.stdout)."""

    def __init__(self, reader, args, collect_stdout=True):
        self.proc = subprocess.Popen([reader] + args, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        self.stderr = LineReader(self.proc.stderr, echo_prefix="reader: ")
        self.stdout_chunks = []
        self.stdout_thread = threading.Thread(
            target=lambda: self.stdout_chunks.append(self.proc.stdout.read()), daemon=True)
        if collect_stdout:
            self.stdout_thread.start()

    def wait_attached(self, timeout=60):
        def attached(line):
            if self.proc.poll() is not None and line is None:
                return False
            return line == "vtctx-reader: attached"
        self.stderr.wait_for(attached, timeout, "'vtctx-reader: attached'")

    def stop(self, timeout=60):
        self.proc.send_signal(signal.SIGINT)
        try:
            code = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            fail("vtctx-reader did not exit after SIGINT")
        self.stdout_thread.join(timeout)
        self.stderr.thread.join(timeout)
        check(code == 0, f"vtctx-reader exited with {code} after SIGINT")
        return "".join(self.stdout_chunks)

    def summary(self):
        lines = [l for l in self.stderr.all if l.startswith("vtctx-reader: summary:")]
        check(len(lines) == 1, f"expected one summary line, got {lines}")
        fields = {}
        for word in lines[0].split():
            if "=" in word:
                key, value = word.split("=", 1)
                fields[key] = value
        return fields

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
