#!/usr/bin/env python3
"""ctest demo.flame_graph: the demo's span-filtered flame graph (demo/slowGraph.py) keeps exactly
the slow requests' stacks, folds the carrier's frames, and is drawn by the reader's renderer
(vtctx_demo_flamegraph: reader-bpf/output/flameGraphSvg.h on a folded file).

  demoFlameGraphTest.py --tool BUILD/demo/vtctx_demo_flamegraph --demo-dir SOURCE/demo
"""
import argparse
import os
import subprocess
import sys
import tempfile


def check(cond, what):
    if not cond:
        print(f"FAIL: {what}")
        sys.exit(1)


def renders_folded_lines(tool, tmp):
    folded = os.path.join(tmp, "in.folded")
    with open(folded, "w", encoding="utf-8") as f:
        f.write("a;b 3\na;c 1\na;b 2\nnot-a-line\nx;y -1\nx;z 2z\n\n")
    svg = os.path.join(tmp, "out.svg")
    subprocess.run([tool, folded, svg, "title <&>"], check=True)
    text = open(svg, encoding="utf-8").read()
    check(text.startswith("<svg ") and text.rstrip().endswith("</svg>"), "an SVG document")
    check("<title>all (6 samples) (6 samples, 100.0%)</title>" in text, "the root counts 6")
    check("<title>b (5 samples, 83.3%)</title>" in text, "repeated stacks add up")
    check("<title>c (1 samples, 16.7%)</title>" in text, "c has its sample")
    check("title &lt;&amp;&gt;" in text, "the title is escaped")
    check("<title>y " not in text and "<title>z " not in text, "malformed lines are skipped")
    bad = subprocess.run([tool, os.path.join(tmp, "missing"), svg, "t"], capture_output=True,
                         text=True)
    check(bad.returncode == 1 and len(bad.stderr.strip().splitlines()) == 1,
          f"a missing input fails with one line: {bad.returncode} {bad.stderr!r}")


def selects_the_slow_requests(tool, demo_dir, tmp):
    sys.path.insert(0, demo_dir)
    import slowGraph  # noqa: E402
    carrier = "java.lang.Thread.run()V;" + slowGraph.CONTINUATION_ENTRY
    with open(os.path.join(tmp, "profile.folded"), "w", encoding="utf-8") as f:
        f.write(f"trace_aa;span_1;{carrier};void io.vtctx.demo.Notes.render(int);"
                f"java.lang.String java.util.Formatter.format(java.lang.String) 3\n"
                f"trace_aa;span_2;{carrier};void io.vtctx.demo.Notes.load() 1\n"
                f"trace_bb;span_3;{carrier};void io.vtctx.demo.Other.run() 5\n"
                f"no_trace;span_4;main 7\n")
    kept = slowGraph.write(tmp, {"aa"}, "GET /x", 2, tool)
    check(kept == [f"{slowGraph.CARRIER_FRAME};void io.vtctx.demo.Notes.render(int);"
                   f"java.lang.String java.util.Formatter.format(java.lang.String) 3",
                   f"{slowGraph.CARRIER_FRAME};void io.vtctx.demo.Notes.load() 1"],
          f"only trace aa's stacks, trace/span dropped, carrier folded: {kept}")
    with open(os.path.join(tmp, "slow-requests.folded"), encoding="utf-8") as f:
        check(f.read().splitlines() == kept, "slow-requests.folded holds the kept stacks")
    text = open(os.path.join(tmp, "slow-requests.svg"), encoding="utf-8").read()
    check("CPU of the 2 slow requests only (GET /x, 4 samples)" in text, "the graph's title")
    check("all (4 samples)" in text, "the graph counts the kept samples")
    hot = slowGraph.hot_frames(kept)
    check(hot == "io.vtctx.demo.Notes.render 75%, java.util.Formatter.format 75%, "
                 "io.vtctx.demo.Notes.load 25%", f"hot frames: {hot}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tool", required=True)
    parser.add_argument("--demo-dir", required=True)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        renders_folded_lines(args.tool, tmp)
        selects_the_slow_requests(args.tool, args.demo_dir, tmp)
    print("PASS: the demo's flame graph is the reader's renderer's, over the slow requests")


if __name__ == "__main__":
    main()
