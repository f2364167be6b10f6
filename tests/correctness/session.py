"""One run of one scenario: the JVM with the marker program, vtctx-reader on it, the line
protocol between them (READY / GO / DONE / QUIT, see Main.java), and nothing slept on a guess:

  1. start the JVM (agent at startup, or none for late attach); wait for READY pid= fd=
  2. late attach only: jcmd JVMTI.agent_load (returns once Agent_OnAttach has run)
  3. start `vtctx-reader syscalls --pid P --syscall write --format json`; wait for its
     "vtctx-reader: attached" line (the BPF program is live from then on)
  4. GO; wait for DONE (every marker written, manifest on disk)
  5. SIGINT the reader: it detaches, drains its ring buffer, prints the summary, exits 0
  6. QUIT; the JVM exits (and the agent writes its stats file)
"""
import json
import os
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass, field

from vtctxtest import start_target, summary_fields
from vtctxtest.processes import LineStream, ProcessError


class HarnessError(Exception):
    """The run could not be carried out (timeout, a process died, a protocol error): the run's
    markers cannot be graded, and the harness reports FAIL."""


@dataclass
class Tools:
    java: str
    jcmd: str
    agent: str
    reader: str
    classpath: str
    java21: str = ""  # the Java 21 runtime's java, for scenarios that ask for it
    jcmd21: str = ""


@dataclass
class RunFiles:
    manifest: str
    events: str
    reader_summary: dict = field(default_factory=dict)
    stats: dict = field(default_factory=dict)
    seconds: float = 0.0


def _agent_options(stats_path, extra):
    return ",".join(["log=error", f"stats={stats_path}"] + [o for o in extra if o])


def _parse_summary(lines):
    try:
        return summary_fields(lines)
    except ProcessError as e:
        raise HarnessError(str(e)) from None


def _check_refusal(stderr_path, first):
    """The second copy said, in one line, that the first copy (named) is already loaded."""
    with open(stderr_path) as f:
        refusals = [l for l in f if l.startswith("vtctx: another OTEP 4947 writer is already "
                                                 f"loaded: {first} defines otel_thread_ctx_v1")]
    if len(refusals) != 1:
        raise HarnessError(f"expected one refusal by the second agent copy naming {first}, got "
                           f"{len(refusals)} (see {stderr_path})")


def run_once(tools, scenario, java_args, run_no, work_dir, agent_extra, timeout):
    """Runs run `run_no` of scenario with the marker program's java_args in work_dir; returns
    RunFiles. Raises HarnessError."""
    os.makedirs(work_dir, exist_ok=True)
    files = RunFiles(manifest=os.path.join(work_dir, "manifest.jsonl"),
                     events=os.path.join(work_dir, "events.jsonl"))
    stats_path = os.path.join(work_dir, "agent-stats.json")
    options = _agent_options(stats_path, scenario.agent_options + agent_extra)
    java, jcmd = (tools.java21, tools.jcmd21) if scenario.java21 else (tools.java, tools.jcmd)
    if not java:
        raise HarnessError("this scenario runs on Java 21: give the harness --java21")
    cmd = [java, "--enable-native-access=ALL-UNNAMED"] + scenario.jvm_flags
    copy = ""
    if scenario.second_copy:
        copy = os.path.join(work_dir, "copy", "libvtctx.so")
        os.makedirs(os.path.dirname(copy), exist_ok=True)
        shutil.copyfile(tools.agent, copy)
    if scenario.late_attach or scenario.second_copy == "attach":
        cmd.append("-XX:+EnableDynamicAgentLoading")
    if not scenario.late_attach:
        cmd.append(f"-agentpath:{tools.agent}={options}")
    if scenario.second_copy == "startup":
        cmd.append(f"-agentpath:{copy}=log=error")
    cmd += ["-cp", tools.classpath, "io.vtctx.correctness.Main",
            f"manifest={files.manifest}", f"code={scenario.code}", f"run={run_no}",
            f"timeout={timeout}"] + java_args

    started = time.monotonic()
    jvm_err = open(os.path.join(work_dir, "jvm.stderr"), "w")
    jvm = start_target(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=jvm_err)
    jvm_out = LineStream(jvm.stdout)
    reader = None
    try:
        ready = jvm_out.wait_for(lambda l: l.startswith(("READY", "FAILED")), 180, "JVM READY")
        if ready.startswith("FAILED"):
            raise HarnessError(f"JVM: {ready}")
        pid = int(dict(w.split("=", 1) for w in ready.split()[1:])["pid"])

        if scenario.late_attach:
            attach = subprocess.run([jcmd, str(pid), "JVMTI.agent_load", tools.agent,
                                     f'"{options}"'], capture_output=True, text=True,
                                    timeout=120)
            if attach.returncode != 0 or "return code: 0" not in attach.stdout:
                raise HarnessError(f"jcmd attach failed: {attach.stdout} {attach.stderr}")

        if scenario.second_copy == "attach":
            attach = subprocess.run([jcmd, str(pid), "JVMTI.agent_load", copy, '"log=error"'],
                                    capture_output=True, text=True, timeout=120)
            if attach.returncode == 0 and "return code: -1" not in attach.stdout:
                raise HarnessError(f"the second copy's attach did not fail: {attach.stdout}")

        events_out = open(files.events, "w")
        reader = start_target(
            [tools.reader, "syscalls", "--pid", str(pid), "--syscall", "write", "--format",
             "json", "--ringbuf-mb", str(scenario.ringbuf_mb)],
            stdout=events_out, stderr=subprocess.PIPE)
        events_out.close()
        reader_err = LineStream(reader.stderr)
        try:
            reader_err.wait_for(lambda l: l == "vtctx-reader: attached", 120,
                                "'vtctx-reader: attached'")
        except ProcessError as e:
            raise HarnessError(f"{e}; reader said: {reader_err.all[-3:]}") from None

        jvm.stdin.write("GO\n")
        jvm.stdin.flush()
        done = jvm_out.wait_for(lambda l: l.startswith(("DONE", "FAILED")), timeout + 60,
                                "JVM DONE")
        if done.startswith("FAILED"):
            raise HarnessError(f"JVM: {done}")

        reader.send_signal(signal.SIGINT)
        try:
            code = reader.wait(timeout=300)
        except subprocess.TimeoutExpired:
            raise HarnessError("vtctx-reader did not exit within 300 s of SIGINT")
        reader_err.thread.join(60)
        if code != 0:
            raise HarnessError(f"vtctx-reader exited {code}: {reader_err.all[-3:]}")
        files.reader_summary = _parse_summary(reader_err.all)

        jvm.stdin.write("QUIT\n")
        jvm.stdin.flush()
        try:
            code = jvm.wait(timeout=120)
        except subprocess.TimeoutExpired:
            raise HarnessError("JVM did not exit within 120 s of QUIT")
        if code != 0:
            raise HarnessError(f"JVM exited {code} (see {work_dir}/jvm.stderr)")
    finally:
        for proc in (reader, jvm):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait()
        jvm_err.close()
    files.seconds = time.monotonic() - started
    if scenario.second_copy:
        _check_refusal(os.path.join(work_dir, "jvm.stderr"), tools.agent)
    if os.path.exists(stats_path):
        with open(stats_path) as f:
            files.stats = json.load(f)
    return files
