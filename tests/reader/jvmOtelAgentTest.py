#!/usr/bin/env python3
"""The OpenTelemetry Java agent user's one command (docs/shim.md, README): a service that uses the
OpenTelemetry API only (otelAgentApp/), started with the OpenTelemetry Java agent and the vtctx
shim jar as its extension, profiled with the reader's default options. Cases:

  attach    no vtctx flag at startup; `vtctx-reader profile --attach --pid P -d D --format pprof
            -o p.pb.gz`; then the application's own copies of the shim (a web application's class
            loader, and one named like the OpenTelemetry Java agent's extension class loader) must
            get nothing: inactive, no record, no buffer
  startup   -agentpath:libvtctx.so with default options, then `profile --pid P` (no --attach)
  refused   -agentpath:libvtctx.so=shim_loaders=system, which does not serve the extension: no
            sample carries a context, and the reader's warning line says the agent refused it,
            for `profile` and for `syscalls` (the service's write(2) calls)

Checks, with google/pprof: at least 90 % of the samples in the request code carry a trace/span
pair the application made current, of the kind that code runs under (a server span in
serverWork, a child span in childWork), and the server span's http.route (copied into records by
default under the Java agent); no sample anywhere carries a pair it did not make current; the
summary's with_context= agrees, and a warning line appears exactly when it must.

  jvmOtelAgentTest.py --case attach|startup|refused --reader R --java J --agent libvtctx.so
                      --app DIR --shim vtctx-shim.jar --pprof PPROF
"""
import json
import os
import subprocess
import tempfile

from vtctxtest import JvmTarget, StreamingReader, check, root_test_args
from vtctxtest.pprofTool import duration_ns, parse_traces, pprof

HZ = 199
SECONDS = 6
MIN_SHARE = 0.90
WORK = {"OtelAgentService.serverWork": "server", "OtelAgentService.childWork": "child"}
ROUTE = "/work/{id}"  # OtelAgentService.ROUTE


def start_service(args, agent_options):
    """The service as a user starts it; with agent_options (None: no vtctx flag), -agentpath."""
    agent = [] if agent_options is None else [
        f"-agentpath:{args.agent}" + (f"={agent_options}" if agent_options else "")]
    argv = [args.java, *agent, f"-javaagent:{args.app}/opentelemetry-javaagent.jar",
            f"-Dotel.javaagent.extensions={args.shim}", "-Dotel.service.name=otel-agent-app",
            "-Dotel.traces.exporter=none", "-Dotel.metrics.exporter=none",
            "-Dotel.logs.exporter=none", "-cp",
            f"{args.app}/vtctx-otel-agent-app.jar:{args.app}/lib/*",
            "io.vtctx.otelagent.OtelAgentService", args.shim]
    return JvmTarget(argv, stderr=subprocess.PIPE, echo=None)


def profile(args, jvm, pid, attach, out):
    """Runs the one command for SECONDS; returns its stderr lines."""
    argv = ["profile", *(["--attach"] if attach else []), "--pid", str(pid), "-d", str(SECONDS),
            "--hz", str(HZ), "--format", "pprof", "-o", out]
    run = StreamingReader(args.reader, argv)
    try:
        run.wait_attached(timeout=120)
        code = run.proc.wait(timeout=SECONDS + 120)
        run.stderr.join(30)
        check(code == 0, f"vtctx-reader exited {code}")
    finally:
        run.kill()
    jvm.send("sync")  # every pair the service made current is out before this line
    jvm.out.wait_for(lambda l: '"synced"' in l, 60, "the service's sync")
    return run.stderr.all


def made_current(jvm):
    """(trace, span) -> kind, for every span the service made current."""
    pairs = {}
    for line in jvm.out.all:
        if '"current"' in line:
            e = json.loads(line)
            pairs[(e["trace"], e["span"])] = e["kind"]
    return pairs


def check_samples(args, path, pairs, expect_context):
    """The request code's samples carry the service's own pairs; none carries a foreign one."""
    samples = parse_traces(pprof(args.pprof, "-traces", path))
    check(samples, "pprof -traces shows no sample")
    period = 1e9 / HZ
    in_work = right = routed = foreign = 0
    for labels, value, frames in samples:
        n = round(duration_ns(value) / period)
        pair = (labels.get("trace_id"), labels.get("span_id"))
        if pair != (None, None) and pair not in pairs:
            foreign += n
        kinds = [kind for name, kind in WORK.items() if any(name in f for f in frames)]
        if not kinds:
            continue
        in_work += n
        right += n if pairs.get(pair) == kinds[0] else 0
        routed += n if labels.get("http.route", "").strip('"') == ROUTE else 0
    share = right / in_work if in_work else 0
    print(f"request-code samples: {in_work}, with the service's own pair of the right kind: "
          f"{right} ({share:.1%}), with http.route={ROUTE}: {routed}; samples with a pair the "
          f"service never made current: {foreign}")
    check(in_work >= 100, f"only {in_work} samples in the request code")
    check(foreign == 0, f"{foreign} samples carry a trace/span pair the service never had")
    if expect_context:
        check(share >= MIN_SHARE, f"{share:.1%} of the request code's samples carry their span "
                                  f"(at least {MIN_SHARE:.0%} required)")
        check(routed >= MIN_SHARE * in_work, f"only {routed} of {in_work} request-code samples "
                                             f"carry http.route={ROUTE} (the default copy)")
    else:
        check(right == 0, f"{right} samples carry a context where none may be published")


def summary_and_warning(lines):
    summary = [l for l in lines if l.startswith("vtctx-reader: summary:")]
    check(len(summary) == 1, f"expected one summary line: {summary}")
    fields = dict(w.split("=", 1) for w in summary[0].split() if "=" in w)
    warnings = [l for l in lines if "carried a trace context" in l]
    return fields, warnings


def check_syscalls_warning(args, pid):
    """`syscalls` on the same JVM says the same."""
    run = StreamingReader(args.reader, ["syscalls", "--pid", str(pid), "--syscall", "write", "-d",
                                        "3", "--format", "json"])
    try:
        run.wait_attached(timeout=120)
        code = run.proc.wait(timeout=120)
        run.stderr.join(30)
        check(code == 0, f"vtctx-reader syscalls exited {code}")
    finally:
        run.kill()
    fields, warnings = summary_and_warning(run.stderr.all)
    print(f"syscalls: events={fields.get('events')} with_context={fields.get('with_context')}; "
          f"warnings: {warnings}")
    check(int(fields.get("events", 0)) > 0, "syscalls saw no write(2) of the service")
    check(len(warnings) == 1 and "refused" in warnings[0],
          f"syscalls' warning must say the agent refused the shim: {warnings}")


def check_webapp_copies(jvm):
    jvm.send("webapp")
    for _ in range(2):
        e = json.loads(jvm.out.wait_for(lambda l: '"webapp"' in l, 60, "the webapp copies"))
        print(f"the application's own shim copy ({e['loader']}): active={e['active']}, "
              f"record={e['record']}, buffer={e['buffer']}")
        check(not e["active"] and e["record"] == 0 and e["buffer"] != "a buffer",
              f"a copy of the shim in the application's class loader got something: {e}")


def main():
    args = root_test_args("case", "reader", "java", "agent", "app", "shim", "pprof")
    work = tempfile.mkdtemp(prefix="vtctx-otel-agent-")
    out = os.path.join(work, "p.pb.gz")
    agent_options = {"attach": None, "startup": "", "refused": "shim_loaders=system"}[args.case]
    with start_service(args, agent_options) as jvm:
        pid = jvm.ready_pid(timeout=180)
        lines = profile(args, jvm, pid, attach=args.case == "attach", out=out)
        pairs = made_current(jvm)
        print(f"the service made {len(pairs)} spans current")
        fields, warnings = summary_and_warning(lines)
        check_samples(args, out, pairs, expect_context=args.case != "refused")
        print(f"summary: samples={fields.get('samples')} with_context={fields.get('with_context')};"
              f" warnings: {warnings}")
        if args.case == "refused":
            check(fields.get("with_context") == "0", f"with_context={fields.get('with_context')}")
            check(len(warnings) == 1 and "refused" in warnings[0],
                  f"the warning must say the agent refused the shim: {warnings}")
            check(any("vtctx: refused the shim" in l for l in jvm.err.all),
                  "the JVM's stderr does not say the agent refused the shim")
            check_syscalls_warning(args, pid)
        else:
            check(int(fields.get("with_context", 0)) > 0 and not warnings,
                  f"with_context={fields.get('with_context')}, warnings {warnings}")
        if args.case == "attach":
            check(any("serves 1 shim (OpenTelemetry Java agent extension)" in l for l in lines),
                  "the reader did not say the agent serves the extension's shim")
            check_webapp_copies(jvm)
    print("PASS")


if __name__ == "__main__":
    main()
