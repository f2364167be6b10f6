#!/usr/bin/env python3
"""The project's code style, checked: C and C++ sources are exactly what clang-format (the
repository's .clang-format: Google, 100 columns) makes of them, and Java lines fit in 100
columns (Google Java style; nothing installed here formats Java).

  styleCheck.py --root SOURCE_DIR --clang-format PATH

Files: the tracked ones (git ls-files) in a git checkout, else every file outside build output.
Prints each offending file (and Java line) and exits 1; exits 0 with a count when all conform.
"""
import argparse
import os
import subprocess
import sys

from vtctxtest.checks import report

CXX = (".c", ".h", ".cc", ".cpp", ".hpp")
SKIP_DIRS = {".git", "node_modules", "__pycache__"}
JAVA_COLUMNS = 100


def source_files(root):
    # A clone has a .git directory, a worktree a .git file: both are git checkouts.
    if os.path.exists(os.path.join(root, ".git")):
        out = subprocess.run(["git", "-C", root, "ls-files", "-z"], check=True,
                             capture_output=True).stdout.decode()
        return sorted(f for f in out.split("\0") if f)
    files = []
    for d, dirs, names in os.walk(root):
        # Build output: CMake's build*/ and Maven's target/ (beside a pom.xml; reader-bpf/target/
        # is source).
        maven = os.path.exists(os.path.join(d, "pom.xml"))
        dirs[:] = [x for x in dirs if x not in SKIP_DIRS and not x.startswith("build")
                   and not (maven and x == "target")]
        files += [os.path.relpath(os.path.join(d, n), root) for n in names]
    return sorted(files)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", required=True)
    parser.add_argument("--clang-format", required=True)
    args = parser.parse_args()
    files = source_files(args.root)
    cxx = [f for f in files if f.endswith(CXX)]
    java = [f for f in files if f.endswith(".java")]
    bad = []
    for f in cxx:
        r = subprocess.run([args.clang_format, "--dry-run", "--Werror", f], cwd=args.root,
                           capture_output=True, text=True)
        if r.returncode != 0:
            first = next((l for l in r.stderr.splitlines() if "error:" in l), r.stderr.strip())
            bad.append(f"{f}: not clang-formatted (clang-format -i {f}): {first}")
    for f in java:
        with open(os.path.join(args.root, f), encoding="utf-8") as text:
            for n, line in enumerate(text, 1):
                width = len(line.rstrip("\n"))
                if width > JAVA_COLUMNS:
                    bad.append(f"{f}:{n}: {width} columns (at most {JAVA_COLUMNS})")
    return report(bad, f"{len(bad)} style violations",
                  f"{len(cxx)} C/C++ files clang-formatted, {len(java)} Java files within "
                  f"{JAVA_COLUMNS} columns")


if __name__ == "__main__":
    sys.exit(main())
