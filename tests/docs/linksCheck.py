#!/usr/bin/env python3
"""Every relative link in the repository's Markdown resolves: the file exists and, for a link
with #anchor into a Markdown file, a heading of that file makes that anchor (GitHub's rule:
lowercase, punctuation dropped, spaces to hyphens, -1, -2... for repeats).

  linksCheck.py --root SRC      exits 1 listing each broken link as file:line: target
"""
import argparse
import os
import re
import subprocess
import sys

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^\s*(```|~~~)")
SKIP_DIRS = {".git", "build", "node_modules", "target"}


def markdown_files(root):
    """The repository's Markdown as git sees it (tracked, or new and not ignored), so build trees
    and fetched dependencies are never read; outside a git checkout, a walk of the tree."""
    try:
        listed = subprocess.run(
            ["git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard",
             "--", "*.md"], check=True, capture_output=True).stdout.decode()
        for name in sorted(set(filter(None, listed.split("\0")))):
            if os.path.exists(os.path.join(root, name)):
                yield os.path.join(root, name)
        return
    except (OSError, subprocess.CalledProcessError):
        pass
    for top, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS and not d.startswith("build")]
        for name in files:
            if name.endswith(".md"):
                yield os.path.join(top, name)


def lines_outside_code(text):
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            yield number, re.sub(r"`[^`]*`", "", line)  # no links inside inline code


def anchors(path):
    seen = {}
    result = set()
    with open(path, encoding="utf-8") as f:
        fenced = False
        for line in f:
            if FENCE.match(line):
                fenced = not fenced
                continue
            m = None if fenced else re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
            if not m:
                continue
            slug = m.group(1).strip().lower()
            slug = re.sub(r"[^\w\- ]", "", slug).replace(" ", "-")
            n = seen.get(slug, 0)
            seen[slug] = n + 1
            result.add(slug if n == 0 else f"{slug}-{n}")
    return result


def check(root):
    broken = []
    anchor_cache = {}
    for md in sorted(markdown_files(root)):
        with open(md, encoding="utf-8") as f:
            text = f.read()
        for number, line in lines_outside_code(text):
            for target in LINK.findall(line):
                if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
                    continue
                path, _, anchor = target.partition("#")
                dest = md if not path else os.path.normpath(os.path.join(os.path.dirname(md), path))
                where = f"{os.path.relpath(md, root)}:{number}: {target}"
                if not os.path.exists(dest):
                    broken.append(f"{where} (no such file)")
                    continue
                if anchor and dest.endswith(".md"):
                    if dest not in anchor_cache:
                        anchor_cache[dest] = anchors(dest)
                    if anchor not in anchor_cache[dest]:
                        broken.append(f"{where} (no heading makes #{anchor})")
    return broken


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", required=True)
    broken = check(os.path.abspath(parser.parse_args().root))
    for line in broken:
        print(line)
    print(f"{len(broken)} broken relative link(s)")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
