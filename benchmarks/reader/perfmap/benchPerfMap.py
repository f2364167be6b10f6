#!/usr/bin/env python3
"""Java frame names, measured (docs/reader.md "Java frames"): the two ways a profiler can learn
the names of JIT-compiled code in a running HotSpot JVM without a restart.

  A. Compiler.perfmap through the attach socket (what vtctx-reader does at profile start and end):
     how long one dump takes on a code cache of several thousand methods, how big the map is,
     the longest stall a spinning Java thread sees during dumps vs. without them, and how many
     addresses change their name between two dumps taken while the JIT is busy (churn);
  B. an agent writing the map from CompiledMethodLoad/DynamicCodeGenerated (cmlAgent.cpp): the
     catch-up GenerateEvents at attach on the same code cache, and the cost of each later event.

  sudo python3 benchPerfMap.py --java /usr/lib/jvm/temurin-25-jdk-amd64/bin/java [--methods 2000]
"""
import argparse
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def generate(work, methods):
    body = []
    for m in range(methods):
        body.append(f"  static long m{m}(int i) {{ return (i * {m + 7}L) ^ (i >>> 3) ^ {m}; }}")
    chunks = (methods + 99) // 100
    for c in range(chunks):
        cases = "".join(f"      case {m}: return m{m}(i);\n"
                        for m in range(c * 100, min(methods, (c + 1) * 100)))
        body.append(f"  static long d{c}(int m, int i) {{\n    switch (m) {{\n{cases}"
                    f"      default: return 0;\n    }}\n  }}")
    body.append("  static long dispatch(int m, int i) {\n    switch (m / 100) {\n" +
                "".join(f"      case {c}: return d{c}(m, i);\n" for c in range(chunks)) +
                "      default: return 0;\n    }\n  }")
    src = open(os.path.join(HERE, "ManyMethods.java.in")).read()
    src = src.replace("@N@", str(methods)).replace("@METHODS@", "\n".join(body))
    path = os.path.join(work, "ManyMethods.java")
    open(path, "w").write(src)
    return path


class Jvm:
    def __init__(self, java, classes):
        self.proc = subprocess.Popen([java, "-cp", classes, "ManyMethods"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.pid = json.loads(self.proc.stdout.readline())["pid"]

    def ask(self, command):
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def execute(self, command, *args):
        """HotSpot attach, protocol 1 (hotspotAttach.h); returns (seconds, code, output)."""
        sock_path = f"/tmp/.java_pid{self.pid}"
        if not os.path.exists(sock_path):
            trigger = f"/proc/{self.pid}/cwd/.attach_pid{self.pid}"
            open(trigger, "w").close()
            os.kill(self.pid, signal.SIGQUIT)
            deadline = time.monotonic() + 10
            while not os.path.exists(sock_path):
                if time.monotonic() > deadline:
                    sys.exit("attach listener did not start")
                time.sleep(0.02)
            os.unlink(trigger)
        args = list(args) + [""] * (3 - len(args))
        start = time.monotonic()
        with socket.socket(socket.AF_UNIX) as s:
            s.connect(sock_path)
            s.sendall(b"".join(x.encode() + b"\0" for x in ["1", command] + args))
            data = b""
            while chunk := s.recv(65536):
                data += chunk
        seconds = time.monotonic() - start
        code, _, out = data.decode(errors="replace").partition("\n")
        return seconds, int(code), out

    def perf_map(self):
        seconds, code, out = self.execute("jcmd", "Compiler.perfmap")
        assert code == 0, out
        text = open(f"/tmp/perf-{self.pid}.map").read()
        return seconds, text

    def stop(self):
        self.proc.stdin.write("quit\n")
        self.proc.stdin.flush()
        self.proc.wait(timeout=60)
        for path in (f"/tmp/perf-{self.pid}.map",):
            if os.path.exists(path):
                os.remove(path)


def parse_map(text):
    out = []
    for line in text.splitlines():
        m = re.match(r"^(?:0x)?([0-9a-f]+) (?:0x)?([0-9a-f]+) (.*)$", line)
        if m:
            out.append((int(m.group(1), 16), int(m.group(2), 16), m.group(3)))
    return sorted(out)


def churn(first, second):
    """Addresses named differently by the two dumps (overlapping ranges, other name), ranges only
    in the second (compiled meanwhile) and only in the first (freed meanwhile)."""
    def overlaps(a, table):
        return [b for b in table if b[0] < a[0] + max(a[1], 1) and a[0] < b[0] + max(b[1], 1)]
    renamed = sum(1 for a in second if any(b[2] != a[2] for b in overlaps(a, first)))
    new = sum(1 for a in second if not overlaps(a, first))
    gone = sum(1 for a in first if not overlaps(a, second))
    return {"entries_first": len(first), "entries_second": len(second), "renamed": renamed,
            "new": new, "freed": gone}


def measure_dumps(args, classes):
    jvm = Jvm(args.java, classes)
    try:
        early = parse_map(jvm.perf_map()[1])
        jvm.proc.stdin.write("warm\n")
        jvm.proc.stdin.flush()
        # The JIT is busy warming up meanwhile: the window is what is measured, nothing is awaited.
        time.sleep(args.churn_seconds)
        during = parse_map(jvm.perf_map()[1])
        assert json.loads(jvm.proc.stdout.readline())["event"] == "warm"
        jvm.ask("gap")
        time.sleep(args.probe_seconds)
        idle_gap = jvm.ask("gap")["gap_ns"]
        times, sizes = [], []
        for _ in range(args.dumps):
            seconds, text = jvm.perf_map()
            times.append(seconds * 1000)
            sizes.append((len(text.splitlines()), len(text)))
        dump_gap = jvm.ask("gap")["gap_ns"]
        return {"dump_ms": times, "map_lines_bytes": sizes[-1], "probe_max_gap_ms_without":
                idle_gap / 1e6, "probe_max_gap_ms_with_dumps": dump_gap / 1e6,
                "churn_during_warmup": churn(early, during)}
    finally:
        jvm.stop()


def measure_agent(args, classes, work):
    agent = os.path.join(work, "cmlAgent.so")
    jdk = os.path.dirname(os.path.dirname(os.path.realpath(args.java)))
    subprocess.run(["g++", "-O2", "-shared", "-fPIC", f"-I{jdk}/include", f"-I{jdk}/include/linux",
                    os.path.join(HERE, "cmlAgent.cpp"), "-o", agent], check=True)
    out = {}
    for when in ("after_warmup", "before_warmup"):
        jvm = Jvm(args.java, classes)
        try:
            map_path = os.path.join(work, f"agent-{when}.map")
            if when == "after_warmup":
                jvm.ask("warm")
            seconds, code, reply = jvm.execute("load", agent, "true", map_path)
            line = jvm.proc.stderr.readline()
            while not line.startswith("{"):  # the JVM's dynamic-agent warning comes first
                line = jvm.proc.stderr.readline()
            attach = json.loads(line)
            if when == "before_warmup":
                jvm.ask("warm")
            time.sleep(0.5)  # the agent rewrites its stats file every 200 ms
            stats = json.load(open(map_path + ".stats"))
            out[when] = {"load_ms": seconds * 1000, **attach, **stats}
        finally:
            jvm.stop()
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--java", required=True)
    parser.add_argument("--methods", type=int, default=2000)
    parser.add_argument("--dumps", type=int, default=7)
    parser.add_argument("--churn-seconds", type=float, default=5)
    parser.add_argument("--probe-seconds", type=float, default=3)
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="vtctx-perfmap-")
    try:
        src = generate(work, args.methods)
        javac = os.path.join(os.path.dirname(os.path.realpath(args.java)), "javac")
        subprocess.run([javac, "-d", work, src], check=True)
        dumps = measure_dumps(args, work)
        dumps["dump_ms_median"] = statistics.median(dumps["dump_ms"])
        print(json.dumps({"compiler_perfmap": dumps}, indent=1))
        print(json.dumps({"agent_written_map": measure_agent(args, work, work)}, indent=1))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
