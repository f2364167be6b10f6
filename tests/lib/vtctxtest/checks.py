"""How a test driver fails, skips and reads its arguments: a failure is one `FAIL: ...` line on
stderr and exit 1; a test that needs root exits 77 (ctest's SKIP_RETURN_CODE) without it."""
import argparse
import json
import os
import sys

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


def json_lines(text):
    """The JSON objects of a text, one a non-empty line."""
    return [json.loads(line) for line in (l.strip() for l in text.splitlines()) if line]


def report(problems, failed, passed):
    """A checker's verdict: each problem on a line, then `FAIL: <failed>` (returns 1), or
    `PASS: <passed>` (returns 0) when there are none."""
    for problem in problems:
        print(problem)
    if problems:
        print(f"FAIL: {failed}")
        return 1
    print(f"PASS: {passed}")
    return 0
