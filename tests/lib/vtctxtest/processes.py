"""Child processes and their output, for every Python driver of the project (the correctness
harness, the reader's test drivers, the demo, the service benchmark): output read line by line on
threads so that every wait has a deadline; children in their own process group, killed with the
driver even if it dies abruptly (PR_SET_PDEATHSIG through setpriv).
"""
import os
import queue
import signal
import subprocess
import sys
import threading
import time


class ProcessError(Exception):
    """A wait ran out of time, or a process stopped or failed; the message says which and why."""


class LineStream:
    """Reads one or more pipes line by line on threads. `streams` is a file, or a list of
    (file, tag) pairs: a tagged stream's lines are queued as (tag, line), an untagged one's as
    the line. `all` keeps every line (when keep); on_line(tag, line) sees each line as read."""

    def __init__(self, streams, echo_prefix=None, keep=True, on_line=None):
        if not isinstance(streams, list):
            streams = [(streams, None)]
        self._lines = queue.Queue()
        self.all = []
        self._open = len(streams)
        self._lock = threading.Lock()

        def pump(stream, tag):
            for raw in iter(stream.readline, ""):
                line = raw.rstrip("\n")
                if keep:
                    self.all.append(line)
                if echo_prefix is not None:
                    print(f"{echo_prefix}{line}", file=sys.stderr, flush=True)
                if on_line:
                    on_line(tag, line)
                self._lines.put((tag, line) if tag else line)
            with self._lock:
                self._open -= 1
                if self._open == 0:
                    self._lines.put(None)  # end of all output: waits stop here

        self.threads = [threading.Thread(target=pump, args=s, daemon=True) for s in streams]
        for t in self.threads:
            t.start()
        self.thread = self.threads[0]

    def wait_for(self, predicate, timeout, what, on_line=None):
        """Returns the first queued line (or (tag, line)) for which predicate is true; raises
        ProcessError after timeout seconds or when every stream has ended. on_line sees every
        line taken from the queue."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise ProcessError(f"timed out after {timeout:.0f} s waiting for {what}")
            try:
                line = self._lines.get(timeout=min(left, 0.5))
            except queue.Empty:
                continue
            if line is None:
                self._lines.put(None)  # later waits end too
                raise ProcessError(f"stream ended while waiting for {what}")
            if on_line:
                on_line(line)
            if predicate(line):
                return line

    def join(self, timeout):
        for t in self.threads:
            t.join(timeout)


class Child:
    """A started process. Its stdout and stderr lines are copied to log_path and queued for
    wait_for() (stderr lines as ("stderr", line)); with stdout_path, stdout goes to that file
    instead and is not read here."""

    def __init__(self, name, argv, log_path, stdin=False, stdout_path=None):
        self.name = name
        self.log = open(log_path, "w", encoding="utf-8")
        self.log_lock = threading.Lock()
        self.stdout_lines = []
        self.stderr_lines = []
        stdout_file = open(stdout_path, "w", encoding="utf-8") if stdout_path else None
        self.proc = subprocess.Popen(
            ["setpriv", "--pdeathsig", "KILL", "--"] + argv,
            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
            stdout=stdout_file or subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1,
            start_new_session=True)
        if stdout_file:
            stdout_file.close()  # the child has its own descriptor
        self.pid = self.proc.pid
        streams = [(self.proc.stderr, "stderr")]
        if not stdout_path:
            streams.append((self.proc.stdout, None))
        self.lines = LineStream(streams, keep=False, on_line=self._keep)

    def _keep(self, tag, line):
        with self.log_lock:
            self.log.write(line + "\n")
            self.log.flush()
        (self.stderr_lines if tag else self.stdout_lines).append(line)

    def send(self, line):
        try:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, ValueError) as e:
            raise ProcessError(f"{self.name} is not reading its input ({e})") from e

    def wait_for(self, predicate, timeout, what, on_line=None):
        """Returns the first stdout line (or ("stderr", line)) for which predicate is true; fails
        after timeout seconds or when the process's output ends. on_line sees every line."""
        try:
            return self.lines.wait_for(predicate, timeout, what, on_line)
        except ProcessError as e:
            self.proc.poll()
            state = ("running" if self.proc.returncode is None
                     else f"exit {self.proc.returncode}")
            raise ProcessError(f"{self.name} ({state}): {e}; see {self.log.name}") from None

    def wait_exit(self, timeout):
        try:
            code = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired as e:
            raise ProcessError(f"{self.name} did not exit within {timeout} s") from e
        self.lines.join(10)
        return code

    def signal(self, sig):
        if self.proc.poll() is None:
            try:
                os.killpg(self.pid, sig)
            except ProcessLookupError:
                pass

    def stop(self, grace=5.0):
        """SIGTERM to the whole group, SIGKILL after `grace` seconds."""
        if self.proc.poll() is None:
            self.signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                self.signal(signal.SIGKILL)
                self.proc.wait()
        self.lines.join(5)
        self.log.close()


class Children:
    """Every child a driver started; stop_all() ends them in reverse order of start."""

    def __init__(self):
        self.children = []
        self.cleanups = []

    def start(self, *args, **kwargs):
        child = Child(*args, **kwargs)
        self.children.append(child)
        return child

    def stop_all(self):
        for child in reversed(self.children):
            child.stop()
        self.children.clear()
        for cleanup in self.cleanups:
            cleanup()
        self.cleanups.clear()


def raise_on_termination_signals():
    """SIGINT (Ctrl-C), SIGTERM and SIGHUP raise KeyboardInterrupt, so that the driver's finally
    block stops every child. Set explicitly: a shell starts background jobs with SIGINT ignored."""
    def handler(signum, frame):
        raise KeyboardInterrupt(signal.Signals(signum).name)
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, handler)
