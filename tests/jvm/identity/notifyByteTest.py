#!/usr/bin/env python3
"""jvm.identity_notify_byte: with channel=identity the agent never creates a JVMTI environment, so
HotSpot's JVMTI virtual-thread notification byte (vtmsNotifyByte.py) stays 0, at startup and after
a late attach, while the shim publishes from virtual threads (whose carriers never point at their
records); with the carrier channel it is 1 (the probe can see the difference). On JDK 25 and on
Java 21.

  notifyByteTest.py --java J --jcmd C [--java21 J --jcmd21 C] --agent libvtctx.so --classes DIR
                    --probe-dir DIR (libvtctx_carrier_probe.so: the carrier's slot, from inside)
"""
import argparse
import os
import subprocess
import sys

from vtctxtest import JvmTarget
from vtctxtest.vtmsNotifyByte import notify_byte

failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def run(java, jcmd, agent, classes, probe_dir, label, startup_options=None,
        attach_options=None):
    """Starts IdentityPublisher (with the agent at startup if startup_options is not None),
    attaches it if attach_options is not None, lets it publish, and returns the byte."""
    cmd = [java, "-XX:+EnableDynamicAgentLoading"]
    if startup_options is not None:
        cmd.append(f"-agentpath:{agent}={startup_options}")
    identity = "identity" in (startup_options or "") + (attach_options or "")
    cmd += ["--enable-native-access=ALL-UNNAMED", f"-Djava.library.path={probe_dir}", "-cp",
            classes, "io.vtctx.test.IdentityPublisher", agent] + (["identity"] if identity else [])
    jvm = JvmTarget(cmd, stderr=subprocess.STDOUT, echo=None)
    out = jvm.out
    try:
        ready = out.wait_for(lambda l: l.startswith("READY"), 60, f"{label}: READY")
        pid = int(ready.split()[1])
        check(notify_byte(pid) == (0 if startup_options is None or "identity" in startup_options
                                   else 1), f"{label}: notification byte before publishing")
        if attach_options is not None:
            # jcmd's own attach is no JVMTI environment (the attach listener is not an agent).
            attach = subprocess.run([jcmd, str(pid), "JVMTI.agent_load", agent,
                                     f'"{attach_options}"'], capture_output=True, text=True,
                                    timeout=60)
            check(attach.returncode == 0 and "return code: 0" in attach.stdout,
                  f"{label}: attach ({attach.stdout.strip()})")
        jvm.send("go")
        done = out.wait_for(lambda l: l.startswith(("PUBLISHED", "FAILED")), 120,
                            f"{label}: PUBLISHED")
        check(done.startswith("PUBLISHED"), f"{label}: the shim published ({done})")
        return notify_byte(pid)
    finally:
        # SIGTERM: HotSpot removes its attach socket when it exits; one a SIGKILL leaves behind,
        # root's, would keep a later JVM with this pid and another uid from starting its listener.
        jvm.stop()


def main():
    p = argparse.ArgumentParser()
    for name in ("java", "jcmd", "agent", "classes", "probe-dir"):
        p.add_argument(f"--{name}", required=True)
    p.add_argument("--java21", default="")
    p.add_argument("--jcmd21", default="")
    args = p.parse_args()
    if os.geteuid() != 0:
        print("notifyByteTest: needs root (reads /proc/PID/mem of the JVM)")
        return 77
    jvms = [("JDK", args.java, args.jcmd)]
    if args.java21:
        jvms.append(("Java 21", args.java21, args.jcmd21))
    for name, java, jcmd in jvms:
        byte = run(java, jcmd, args.agent, args.classes, args.probe_dir, f"{name} startup identity",
                   startup_options="channel=identity")
        check(byte == 0, f"{name} startup identity: byte {byte} after publishing (want 0)")
        byte = run(java, jcmd, args.agent, args.classes, args.probe_dir, f"{name} attach identity",
                   attach_options="channel=identity")
        check(byte == 0, f"{name} attach identity: byte {byte} after publishing (want 0)")
        byte = run(java, jcmd, args.agent, args.classes, args.probe_dir, f"{name} startup carrier",
                   startup_options="log=error")
        check(byte == 1, f"{name} startup carrier: byte {byte} (want 1: the probe sees JVMTI)")
    print("PASS" if not failures else f"FAIL: {len(failures)} checks")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
