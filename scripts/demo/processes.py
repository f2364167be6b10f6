"""Child processes of the demo: each in its own process group (so a Ctrl-C on the terminal reaches
only the demo, which then stops them in order), killed with the demo even if it dies abruptly
(PR_SET_PDEATHSIG through setpriv), with line-by-line output readers so every wait has a deadline.
"""
import os
import queue
import signal
import subprocess
import threading
import time


class DemoError(Exception):
    """A step of the demo failed; the message says which and why."""


class Child:
    """A started process. Its stdout and stderr lines are copied to log_path and queued for
    wait_for() (stderr lines as ("stderr", line)); with stdout_path, stdout goes to that file
    instead and is not read here."""

    def __init__(self, name, argv, log_path, stdin=False, stdout_path=None):
        self.name = name
        self.log = open(log_path, "w", encoding="utf-8")
        self.log_lock = threading.Lock()
        self.lines = queue.Queue()
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
        streams = [(self.proc.stderr, self.stderr_lines, "stderr")]
        if not stdout_path:
            streams.append((self.proc.stdout, self.stdout_lines, None))
        self._open_streams = len(streams)
        self._pumps = [threading.Thread(target=self._pump, args=stream, daemon=True)
                       for stream in streams]
        for pump in self._pumps:
            pump.start()

    def _pump(self, stream, keep, tag):
        for raw in iter(stream.readline, ""):
            line = raw.rstrip("\n")
            with self.log_lock:
                self.log.write(line + "\n")
                self.log.flush()
            keep.append(line)
            self.lines.put((tag, line) if tag else line)
        with self.log_lock:
            self._open_streams -= 1
            if self._open_streams == 0:
                self.lines.put(None)  # end of all output: waits stop here

    def send(self, line):
        try:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, ValueError) as e:
            raise DemoError(f"{self.name} is not reading its input ({e})") from e

    def wait_for(self, predicate, timeout, what, on_line=None):
        """Returns the first stdout line (or ("stderr", line)) for which predicate is true; fails
        after timeout seconds or when the process's stdout ends. on_line sees every line."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise DemoError(f"timed out after {timeout:.0f} s waiting for {what} "
                                f"(see {self.log.name})")
            try:
                line = self.lines.get(timeout=min(left, 0.5))
            except queue.Empty:
                continue
            if line is None:
                self.proc.poll()
                raise DemoError(f"{self.name} stopped (exit {self.proc.returncode}) while waiting "
                                f"for {what}; see {self.log.name}")
            if on_line:
                on_line(line)
            if predicate(line):
                return line

    def wait_exit(self, timeout):
        try:
            code = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired as e:
            raise DemoError(f"{self.name} did not exit within {timeout} s") from e
        for pump in self._pumps:
            pump.join(10)
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
        for pump in self._pumps:
            pump.join(5)
        self.log.close()


class Children:
    """Every child the demo started; stop_all() ends them in reverse order of start."""

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
    """SIGINT (Ctrl-C), SIGTERM and SIGHUP raise KeyboardInterrupt, so that the demo's finally
    block stops every child. Set explicitly: a shell starts background jobs with SIGINT ignored."""
    def handler(signum, frame):
        raise KeyboardInterrupt(signal.Signals(signum).name)
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, handler)
