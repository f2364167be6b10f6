#!/usr/bin/env python3
"""The direction of dependencies between parts, checked over #include lines.

  partLayers.py --root SOURCE_DIR

vtctx-reader's sub-parts form layers: target/ (reading a live process) < hotspot/ (a client of
HotSpot) < output/ (rendering) < commands/ (the CLI and the BPF commands). A file may include
headers of its own sub-part and of those below it, never of one above. Across the tree: the
reader never includes the agent's or the in-JVM writer's headers (tls-publish/, agent/); the
writer library never includes the agent's; protocol/ includes nothing of the project but itself.

Prints every offending include and exits 1; exits 0 with a count otherwise.
"""
import argparse
import os
import re
import sys

from vtctxtest.checks import report

READER = "reader-bpf"
LAYERS = ["target", "hotspot", "output", "commands"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
SOURCE = (".c", ".h", ".cpp")

# Headers of a part that another part may not name, by the including part.
FORBIDDEN_PARTS = {
    READER: {"agent", "tls-publish"},
    "tls-publish": {"agent"},
    "protocol": {"agent", "tls-publish", READER},
}


def header_index(root):
    """Every header of the project, by file name: the part folders that hold one of that name."""
    index = {}
    for top in ("agent", "tls-publish", "protocol", READER):
        for d, _, names in os.walk(os.path.join(root, top)):
            for n in names:
                if n.endswith(".h"):
                    index.setdefault(n, set()).add(os.path.relpath(d, root).split(os.sep)[0])
    return index


def reader_layer(path):
    parts = path.split("/")
    return parts[1] if len(parts) > 2 and parts[0] == READER and parts[1] in LAYERS else None


def check(root):
    bad = []
    count = 0
    index = header_index(root)
    for top in FORBIDDEN_PARTS:
        for d, _, names in os.walk(os.path.join(root, top)):
            for n in names:
                if not n.endswith(SOURCE):
                    continue
                path = os.path.relpath(os.path.join(d, n), root).replace(os.sep, "/")
                with open(os.path.join(root, path), encoding="utf-8") as f:
                    text = f.read()
                layer = reader_layer(path)
                for inc in INCLUDE.findall(text):
                    count += 1
                    first = inc.split("/")[0]
                    if layer is not None and first in LAYERS:
                        if LAYERS.index(first) > LAYERS.index(layer):
                            bad.append(f"{path}: includes {inc}: {READER}/{layer} may include "
                                       f"only {', '.join(LAYERS[:LAYERS.index(layer) + 1])}")
                        continue
                    if layer is not None and "/" not in inc and inc in index and \
                            READER not in index[inc]:
                        owner = sorted(index[inc])[0]
                    elif layer is not None:
                        continue
                    else:
                        owners = index.get(os.path.basename(inc), set())
                        own = path.split("/")[0]
                        if own in owners or not owners:
                            continue
                        owner = sorted(owners)[0]
                    if owner in FORBIDDEN_PARTS[top]:
                        bad.append(f"{path}: includes {inc}, a header of {owner}/")
    return bad, count


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", required=True)
    args = parser.parse_args()
    bad, count = check(args.root)
    return report(bad, f"{len(bad)} includes against the part layers",
                  f"{count} includes follow the part layers ({' < '.join(LAYERS)})")


if __name__ == "__main__":
    sys.exit(main())
