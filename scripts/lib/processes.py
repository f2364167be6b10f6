"""The scripts' (demo/run.py, benchmarks/service/) name for tests/lib/vtctxtest/processes.py,
the one implementation of child processes and their line-by-line output."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests",
                                "lib"))
from vtctxtest.processes import (Child, Children, LineStream, ProcessError,  # noqa: E402,F401
                                 raise_on_termination_signals)
