#!/usr/bin/env python3
"""Every ctest name says which file it runs (tests/README.md, "Names"): `<folder>.<driver>[.<case>]`,
where <driver> is the driver's file name without the folder's name in front and without a Test or
Check suffix (a driver in a subfolder keeps the subfolder: jvm.identity_notify_byte runs
jvm/identity/notifyByteTest.py). The driver is the Python or shell script a test runs, the
fuzzer runFuzzer.sh runs, or the main class of a Java test; a GoogleTest binary's tests carry the
folder it is built in, a Maven run "maven". The benchmarks' smoke runs (bench.smoke.*) are named
after the benchmark in benchmarks/CMakeLists.txt and not checked here.

  testNames.py --build BUILD_DIR [--ctest CTEST]   exits 1 listing each test that breaks the rule
"""
import argparse
import json
import os
import re
import subprocess
import sys

from vtctxtest.checks import report


def squash(text):
    return re.sub(r"[._-]", "", text).lower()


def driver_of(command, source_root):
    """(what the name must start with, after the folder) for a test command, or None if any name
    is fine for it."""
    args = command
    for i, arg in enumerate(args):
        if arg.endswith("runFuzzer.sh") and i + 1 < len(args):
            return os.path.basename(args[i + 1])
        if re.search(r"\.(py|sh)$", arg):
            path = os.path.relpath(arg, os.path.join(source_root, "tests"))
            return path if not path.startswith("..") else os.path.basename(arg)
    for arg in command:
        m = re.match(r"^io\.vtctx\.[\w.]+\.([A-Z]\w*)$", arg)
        if m:
            return m.group(1)
    if os.path.basename(command[0]) == "mvn":
        return "maven"
    return None


def expected_prefix(driver, part):
    parts = driver.split(os.sep)
    if parts[0] == part:
        parts = parts[1:]
    stem = re.sub(r"\.(py|sh)$", "", "".join(parts))
    stem = re.sub(r"(Test|Check)$", "", stem)
    if stem.lower().startswith(part):
        stem = stem[len(part):]
    return squash(stem)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", required=True)
    parser.add_argument("--ctest", default="ctest")
    args = parser.parse_args()
    listed = subprocess.run([args.ctest, "--test-dir", args.build, "--show-only=json-v1"],
                            check=True, capture_output=True, text=True).stdout
    tests = json.loads(listed)["tests"]
    source_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    bad = []
    for test in tests:
        name = test["name"]
        command = test.get("command") or []
        part, _, rest = name.partition(".")
        if part == "bench" or not command:
            continue
        executable = os.path.relpath(command[0], args.build)
        if not executable.startswith("..") and executable.startswith("tests" + os.sep):
            folder = executable.split(os.sep)[1]  # a GoogleTest binary built in tests/<folder>
            if folder != part:
                bad.append(f"{name}: runs {executable}, built in tests/{folder}/")
            continue
        driver = driver_of(command, source_root)
        if driver is None:
            continue
        prefix = expected_prefix(driver, part)
        if not squash(rest).startswith(prefix):
            bad.append(f"{name}: runs {driver}, so its name should start with {part}.{prefix}")
    return report(bad, f"{len(bad)} of {len(tests)} ctest names do not name their file",
                  f"{len(tests)} ctest names name their file")


if __name__ == "__main__":
    sys.exit(main())
