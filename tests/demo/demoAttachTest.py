#!/usr/bin/env python3
"""Issue 19's one command, end to end, on the demo's OpenTelemetry service: a JVM started with NO
vtctx flag (the shim jar on the class path, OpenTelemetry spans per request, frame pointers on),
under the demo's load generator, then

  vtctx-reader profile --pid P --attach --duration 6 --format pprof --output p.pb.gz

Checks, with google/pprof (never our own decoder):
  - `pprof -tags`: at least MIN_TRACES trace ids, and every one is a trace the service made current
    (its request log, the ground truth): no sample carries a trace the application never had;
  - `pprof -top`: the service's own Java methods (io.vtctx.demo) by name.
Twice: the JVM in the reader's namespaces, and inside its own pid and mount namespace with a
private /tmp (`unshare --pid --mount --fork`, a tmpfs on /tmp), as in a container.

  demoAttachTest.py --java-home J --reader R --classpath CP --native-dir D --pprof P --out DIR
"""
import argparse
import json
import os
import re
import subprocess
import sys

from vtctxtest.privateTmp import private_tmp_argv
from vtctxtest.processes import Children, ProcessError

MIN_TRACES = 5
TRACE_ID = re.compile(r"\b([0-9a-f]{32})\b")


def fail(message):
    print(f"FAIL: {message}")
    sys.exit(1)


def pprof(tool, *args):
    proc = subprocess.run([tool, *args], capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        fail(f"pprof {' '.join(args)}: {proc.stderr.strip()}")
    return proc.stdout


def host_pid(launcher_pid, contained):
    """The JVM's pid as the reader sees it: in a container, the only child of unshare."""
    if not contained:
        return launcher_pid
    path = f"/proc/{launcher_pid}/task/{launcher_pid}/children"
    children = open(path, encoding="ascii").read().split()
    if len(children) != 1:
        fail(f"unshare has children {children}")
    return int(children[0])


def trace_ids_in_tags(text):
    """The trace_id values of `pprof -tags` (the lines of its trace_id section)."""
    ids, section = set(), None
    for line in text.splitlines():
        header = re.match(r"^\s*([\w.]+): Total", line)
        if header:
            section = header.group(1)
        elif section == "trace_id":
            ids.update(TRACE_ID.findall(line))
    return ids


def run_case(args, contained, children):
    name = "container" if contained else "host"
    out = os.path.join(args.out, name)
    os.makedirs(out, exist_ok=True)
    log_path = os.path.join(out, "requests.jsonl")
    java = os.path.join(args.java_home, "bin", "java")
    argv = [java, f"-Djava.library.path={args.native_dir}",
            "--enable-native-access=ALL-UNNAMED", "-Dotel.service.name=notes-attach",
            "-Dotel.traces.exporter=none", "-Dotel.metrics.exporter=none",
            "-Dotel.logs.exporter=none", "-cp", args.classpath, "io.vtctx.demo.NotesService",
            log_path, "400000"]
    if contained:  # what the JVM reads and writes stays visible, also under /tmp
        keep = {os.path.dirname(p.rstrip("*")) for p in args.classpath.split(":")}
        argv = private_tmp_argv(sorted(keep | {args.native_dir, out}), argv)
    service = children.start(f"service ({name})", argv, os.path.join(out, "service.log"),
                             stdin=True)
    info = json.loads(service.wait_for(lambda l: isinstance(l, str) and '"listening"' in l, 90,
                                       "the service to listen"))
    if any(l.startswith("vtctx:") for l in service.stderr_lines):
        fail(f"{name}: the agent was loaded at startup: {service.stderr_lines}")
    pid = host_pid(service.pid, contained)
    load = children.start(
        f"load ({name})",
        [java, "-cp", args.classpath, "io.vtctx.demo.LoadGenerator", str(info["port"]), "3", "12",
         "6", "4", "500"],
        os.path.join(out, "load.log"), stdin=True)
    load.wait_for(lambda l: isinstance(l, str) and '"warm"' in l, 120, "the load's warm-up")
    load.send("go")
    profile = os.path.join(out, "p.pb.gz")
    reader = subprocess.run(
        [args.reader, "profile", "--pid", str(pid), "--attach", "--duration", "6", "--format",
         "pprof", "--output", profile], capture_output=True, text=True, timeout=180)
    print(f"{name}: reader exit {reader.returncode}: {reader.stderr.strip()}")
    if reader.returncode != 0:
        fail(f"{name}: vtctx-reader profile --attach exited {reader.returncode}")
    load.wait_for(lambda l: isinstance(l, str) and '"done"' in l, 120, "the load to finish")
    service.send("flush")
    service.wait_for(lambda l: isinstance(l, str) and '"flushed"' in l, 60, "the request log")
    service.send("quit")
    load.wait_exit(30)
    service.wait_exit(30)

    with open(log_path, encoding="utf-8") as f:
        made_current = {json.loads(line)["trace_id"] for line in f if line.strip()}
    sampled = trace_ids_in_tags(pprof(args.pprof, "-tags", profile))
    foreign = sampled - made_current
    print(f"{name}: pprof -tags lists {len(sampled)} trace ids; the service made "
          f"{len(made_current)} current; not the service's: {len(foreign)}")
    if len(sampled) < MIN_TRACES:
        fail(f"{name}: pprof -tags lists {len(sampled)} trace ids, want >= {MIN_TRACES}")
    if foreign:
        fail(f"{name}: traces the service never made current: {sorted(foreign)[:5]}")
    top = pprof(args.pprof, "-top", "-nodecount=200", profile)
    methods = sorted({m for m in re.findall(r"io[./]vtctx[./]demo[./][\w.$/:]+", top)})
    print(f"{name}: pprof -top names {len(methods)} io.vtctx.demo methods, e.g. {methods[:3]}")
    if not methods:
        fail(f"{name}: pprof -top names no io.vtctx.demo method:\n{top}")


def main():
    p = argparse.ArgumentParser()
    for name in ("java-home", "reader", "classpath", "native-dir", "pprof", "out"):
        p.add_argument(f"--{name}", required=True)
    args = p.parse_args()
    if os.geteuid() != 0:
        print("SKIP: needs root (BPF, attach as the target's user, unshare)")
        sys.exit(77)
    children = Children()
    try:
        for contained in (False, True):
            run_case(args, contained, children)
            children.stop_all()
    except ProcessError as e:
        fail(str(e))
    finally:
        children.stop_all()
    print("PASS")


if __name__ == "__main__":
    main()
