"""Reads a child's pipe line by line on a thread, so that every wait has a deadline."""
import queue
import sys
import threading
import time


class HarnessError(Exception):
    """The run could not be carried out (timeout, a process died, a protocol error): the run's
    markers cannot be graded, and the harness reports FAIL."""


class LineStream:
    def __init__(self, stream, echo_prefix=None, keep=True):
        self._lines = queue.Queue()
        self.all = []
        self._keep = keep

        def pump():
            for raw in iter(stream.readline, ""):
                line = raw.rstrip("\n")
                if keep:
                    self.all.append(line)
                if echo_prefix is not None:
                    print(f"{echo_prefix}{line}", file=sys.stderr, flush=True)
                self._lines.put(line)
            self._lines.put(None)

        self.thread = threading.Thread(target=pump, daemon=True)
        self.thread.start()

    def wait_for(self, predicate, timeout, what):
        """Returns the first line matching predicate; HarnessError on timeout or end of stream."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise HarnessError(f"timed out after {timeout:.0f} s waiting for {what}")
            try:
                line = self._lines.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                raise HarnessError(f"stream ended while waiting for {what}")
            if predicate(line):
                return line
