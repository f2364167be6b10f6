"""A small, self-contained flame-graph renderer: folded stacks ("a;b;c 12" per line) to a static
SVG (root at the bottom, children sorted by name, width = samples, hover shows each frame's
samples and share). Colours tell frame kinds apart: Java (JIT or interpreted), JVM/native,
kernel.

  python3 flamegraph.py IN.folded OUT.svg [--title TEXT]
"""
import argparse
import hashlib
from html import escape

WIDTH = 1200
FRAME_H = 16
PAD = 10
TITLE_H = 28
FONT = 11
CHAR_W = 6.2  # approximate advance of the 11 px monospace font
MIN_W = 2.0  # frames narrower than this (px) are not drawn (nor their children)


class Node:
    __slots__ = ("name", "value", "children")

    def __init__(self, name):
        self.name = name
        self.value = 0
        self.children = {}

    def add(self, frames, count):
        self.value += count
        node = self
        for frame in frames:
            node = node.children.setdefault(frame, Node(frame))
            node.value += count


def parse_folded(lines):
    root = Node("all")
    for line in lines:
        line = line.strip()
        if not line:
            continue
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        root.add(stack.split(";"), int(count))
    return root


def depth(node):
    return 1 + max((depth(c) for c in node.children.values()), default=0)


def colour(name):
    """Deterministic colour per frame, hue by kind: kernel orange, Java green, the rest
    (JVM, libc, stubs) red-yellow, like the usual flame-graph palettes."""
    h = int(hashlib.md5(name.encode()).hexdigest()[:4], 16) / 0xFFFF
    if name.endswith("_[k]"):
        return f"rgb({220 + int(25 * h)},{120 + int(50 * h)},40)"
    if "." in name and ("(" in name or name.startswith(("java", "jdk", "sun", "io.", "com."))):
        return f"rgb({60 + int(50 * h)},{170 + int(50 * h)},{60 + int(40 * h)})"
    if name in ("Interpreter",):
        return f"rgb(110,{190 + int(30 * h)},110)"
    return f"rgb({215 + int(40 * h)},{80 + int(110 * h)},{40 + int(30 * h)})"


def short(name):
    """Java perf-map names carry return and parameter types; the graph shows Class.method."""
    if "(" not in name or name.startswith("["):
        return name
    head = name.split("(", 1)[0]
    if " " in head and "." in head:
        head = head.rsplit(" ", 1)[1]
    return head


def render(root, title):
    levels = depth(root)
    height = TITLE_H + levels * FRAME_H + 2 * PAD
    scale = (WIDTH - 2 * PAD) / max(root.value, 1)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}" font-family="monospace" font-size="{FONT}">',
        f'<rect width="100%" height="100%" fill="#fdfdf6"/>',
        f'<text x="{WIDTH / 2}" y="{PAD + 14}" text-anchor="middle" font-size="15">'
        f'{escape(title)}</text>',
    ]

    def draw(node, x, level):
        w = node.value * scale
        if w < MIN_W:
            return
        y = height - PAD - (level + 1) * FRAME_H
        share = 100.0 * node.value / max(root.value, 1)
        label = short(node.name)
        out.append(f'<g><title>{escape(node.name)} ({node.value} samples, {share:.1f}%)</title>'
                   f'<rect x="{x:.1f}" y="{y}" width="{w:.1f}" height="{FRAME_H - 1}" '
                   f'fill="{colour(node.name)}" rx="1"/>')
        fit = int((w - 4) / CHAR_W)
        if fit >= 3:
            text = label if len(label) <= fit else label[: fit - 2] + ".."
            out.append(f'<text x="{x + 2:.1f}" y="{y + FRAME_H - 4}">{escape(text)}</text>')
        out.append("</g>")
        cx = x
        for name in sorted(node.children):
            child = node.children[name]
            draw(child, cx, level + 1)
            cx += child.value * scale

    draw(root, PAD, 0)
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folded")
    parser.add_argument("svg")
    parser.add_argument("--title", default="Flame graph")
    args = parser.parse_args()
    with open(args.folded, encoding="utf-8") as f:
        root = parse_folded(f)
    with open(args.svg, "w", encoding="utf-8") as f:
        f.write(render(root, args.title))


if __name__ == "__main__":
    main()
