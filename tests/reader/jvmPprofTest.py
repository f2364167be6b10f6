#!/usr/bin/env python3
"""One command on a running JVM, read by the real pprof tool: a JVM started without the agent
(VtSpin ... late: virtual threads burning CPU in VtSpin.spinEven (even index) or spinOdd (odd
index), -XX:+PreserveFramePointer), then

  vtctx-reader profile --attach --pid P --format pprof --output p.pb.gz
  vtctx-reader profile --attach --pid P --format svg --trace <one trace> --output one.svg

running at once (the second finds the agent already active). Checks, with `pprof` (google/pprof,
installed by scripts/install-deps.sh), never with our own decoder:
  - `-raw`: sample types samples/count and cpu/nanoseconds, period 1e9/hz ns;
  - `-traces`: both JIT methods named (by the perf map the reader asked the JVM for: no jcmd
    here), every spin stack under the trace and span of a virtual thread of its parity, every
    sample labelled with thread.id, none without its stack;
  - `-tags` lists trace_id, span_id, thread.id;
  - `-tagfocus trace_id=<id>` keeps exactly that trace's samples (all of them, nothing else);
  - `-top` (text) and `-http` (the web UI serves the profile) work;
  - Pyroscope's default ingestion limits hold (4 MiB uncompressed, 16 000 samples, 100 labels per
    sample, depth 1 000);
and the SVG parses as XML and holds only the selected trace's method.

  jvmPprofTest.py --reader R --java J --agent libvtctx.so --classes DIR --pprof PPROF
"""
import gzip
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request
import xml.etree.ElementTree as ET

from vtctxtest import LineReader, StreamingReader, check, fail, root_test_args, stop_jvm
from vtctxtest.pprofTool import parse_traces, pprof

HZ = 199
TRACE = re.compile(r"^7370696e([0-9a-f]{8})0{16}$")


def check_stacks(samples):
    seen = {"spinEven": 0, "spinOdd": 0}
    for labels, _, frames in samples:
        check("thread.id" in labels, f"a sample without thread.id: {labels}")
        check(not {"[stack lost]", "[no user stack]"} & set(frames), f"a sample lost its stack: {frames}")
        spins = [f for f in frames if "VtSpin.spinEven" in f or "VtSpin.spinOdd" in f]
        if not spins:
            continue
        method = "spinEven" if "spinEven" in spins[0] else "spinOdd"
        seen[method] += 1
        m = TRACE.match(labels.get("trace_id", ""))
        check(m is not None, f"{method} without a VtSpin trace: {labels}")
        index = int(m.group(1), 16)
        check(labels.get("span_id") == f"{index + 1:016x}", f"span not of trace: {labels}")
        check((index % 2 == 0) == (method == "spinEven"), f"{method} under trace {index}")
    print(f"stacks in spinEven {seen['spinEven']}, spinOdd {seen['spinOdd']}")
    check(seen["spinEven"] > 0 and seen["spinOdd"] > 0, "JIT methods not named in the profile")


def check_http(tool, profile):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([tool, "-no_browser", f"-http=127.0.0.1:{port}", profile],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/ui/top", timeout=5) as r:
                    page = r.read().decode()
                    break
            except OSError:
                check(server.poll() is None, "pprof -http exited")
                check(time.monotonic() < deadline, "pprof -http did not serve within 60 s")
                time.sleep(0.2)  # polling a server's port: the wait has a deadline above
        check("VtSpin.spin" in page, "the web UI's top page does not show the spin methods")
        print(f"pprof -http served /ui/top ({len(page)} bytes)")
    finally:
        server.kill()
        server.wait()


def main():
    args = root_test_args("reader", "java", "agent", "classes", "pprof")
    work = tempfile.mkdtemp(prefix="vtctx-pprof-")
    profile = os.path.join(work, "p.pb.gz")
    svg = os.path.join(work, "one.svg")
    one_trace = "7370696e000000010000000000000000"
    jvm = subprocess.Popen(
        [args.java, "-XX:+PreserveFramePointer", "-XX:CompileCommand=quiet",
         "-XX:CompileCommand=dontinline,VtSpin::spin*", "-cp", args.classes, "VtSpin", "8",
         "3000", "late"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    out = LineReader(jvm.stdout, echo_prefix="jvm: ")
    readers = []
    try:
        pid = int(out.wait_for(lambda l: '"ready"' in l, 120, "JVM ready").split(":")[-1][:-1])
        base = ["profile", "--attach", "--pid", str(pid), "--hz", str(HZ)]
        readers.append(StreamingReader(args.reader, base + ["--format", "pprof", "--output",
                                                            profile]))
        readers[0].wait_attached()
        readers.append(StreamingReader(args.reader, base + ["--format", "svg", "--trace",
                                                            one_trace, "-o", svg]))
        readers[1].wait_attached()
        check(any("already active" in l for l in readers[1].stderr.all),
              "the second --attach did not find the agent active")
        jvm.stdin.write("go\n")
        jvm.stdin.flush()
        out.wait_for(lambda l: '"done"' in l, 120, "JVM done")
        for r in readers:
            r.stop()
    finally:
        for r in readers:
            r.kill()
        stop_jvm(jvm)

    raw = pprof(args.pprof, "-raw", profile)
    check("PeriodType: cpu nanoseconds" in raw and f"Period: {10**9 // HZ}" in raw,
          f"period type/period wrong:\n{raw[:400]}")
    check(re.search(r"samples/count cpu/nanoseconds", raw), f"sample types wrong:\n{raw[:400]}")
    samples = parse_traces(pprof(args.pprof, "-traces", profile))
    check(samples, "pprof -traces shows no sample")
    check_stacks(samples)
    tags = pprof(args.pprof, "-tags", profile)
    for key in ("trace_id:", "span_id:", "thread.id:"):
        check(key in tags, f"pprof -tags lacks {key}\n{tags}")
    focused = parse_traces(pprof(args.pprof, "-traces", f"-tagfocus=trace_id={one_trace}", profile))
    everything = [s for s in samples if s[0].get("trace_id") == one_trace]
    check(focused and all(s[0].get("trace_id") == one_trace for s in focused),
          "-tagfocus kept other traces")
    check(sorted(map(str, focused)) == sorted(map(str, everything)),
          f"-tagfocus kept {len(focused)} stacks of the trace, the profile has {len(everything)}")
    check(not any("spinEven" in f for s in focused for f in s[2]), "spinEven in an odd trace")
    print(f"-tagfocus trace_id={one_trace}: {len(focused)} stacks, all of that trace")
    check("VtSpin.spin" in pprof(args.pprof, "-top", profile), "pprof -top shows no spin method")
    size = len(gzip.decompress(open(profile, "rb").read()))
    deepest = max(len(s[2]) for s in samples)
    most_labels = max(len(s[0]) for s in samples)
    print(f"{size} bytes uncompressed, {len(samples)} stacks, depth <= {deepest}, "
          f"labels <= {most_labels}")
    check(size <= 4 << 20 and len(samples) <= 16000 and deepest <= 1000 and most_labels <= 100,
          "over Pyroscope's default ingestion limits")
    check_http(args.pprof, profile)

    tree = ET.parse(svg)
    titles = " ".join(t.text or "" for t in tree.iter("{http://www.w3.org/2000/svg}title"))
    check("VtSpin.spinOdd" in titles and "spinEven" not in titles,
          "the SVG of one odd trace must show spinOdd and no spinEven")
    check(f"trace_{one_trace}" in titles and "trace_7370696e00000000" not in titles,
          "the SVG holds other traces")
    print("PASS")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
