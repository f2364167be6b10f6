"""The project's Python test library: every test driver and harness imports it (ctest puts
tests/lib on PYTHONPATH, VTCTX_TEST_PYTHONPATH in tests/CMakeLists.txt; the scripts that run
drivers by hand set it too).

  checks     fail/check (one FAIL line, exit 1), root-or-skip, the drivers' argument parsers
  processes  child processes, their output read line by line with deadlines (LineStream, Child)
  targets    a target process started with its ready-line wait, killed with the driver
             (PR_SET_PDEATHSIG); a test JVM reading commands on stdin (JvmTarget)
  reader     vtctx-reader runs: one-shot commands, `with attached_reader(...)` for the streaming
             ones
  privateTmp a command line with a private /tmp (its own pid and mount namespace)
"""
from vtctxtest.checks import (SKIP, check, fail, json_lines, require_root,  # noqa: F401
                              required_args_parser, root_test_args)
from vtctxtest.reader import (StreamingReader, attached_reader,  # noqa: F401
                              markers_under_syscalls, run_markers, run_reader, summary_fields)
from vtctxtest.targets import (JvmTarget, LineReader, readable_by_all, start_target,  # noqa: F401
                               stop_jvm)
