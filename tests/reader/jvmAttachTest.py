#!/usr/bin/env python3
"""`vtctx-reader attach` on real JVMs, with no JDK tool involved:
  - container: a JVM in its own pid and mount namespace with a private /tmp (unshare), the agent
    given from a directory the JVM cannot see: the reader copies it into the JVM's /tmp, the
    agent reports itself active, resolve finds it, and a second attach says "already active";
  - another user: a JVM running as nobody in / (not writable: the trigger file goes to its /tmp),
    the agent taken from beside the reader (the build tree's default): active;
  - Java 21, the oldest supported release: active;
  - `profile --attach` on a JVM without -XX:+PreserveFramePointer prints the one-line hint, and
    `resolve --attach` on a JVM that has the agent says "already active" and goes on;
  - the errors, one line each with its exit code: the agent's own reason for bad options (exit 8,
    then a good attach still works), Java 17 (7), -XX:+DisableAttachMechanism (7, and no SIGQUIT
    sent: the JVM prints no thread dump), not a JVM (7), a JVM that cannot answer in time (8),
    an unprivileged reader (4).

  jvmAttachTest.py --reader R --java J --java17 J17 --java21 J21 --classes21 DIR
                   --agent libvtctx.so --classes DIR --sources DIR
"""
import os
import shutil
import signal
import subprocess
import tempfile

from vtctxtest import JvmTarget, check, readable_by_all, root_test_args, run_reader, stop_jvm
from vtctxtest.privateTmp import private_tmp_argv

NOBODY = 65534


def start_jvm(command, **kwargs):
    """Starts an IdleTarget-like JVM; returns (process, its stdout/stderr readers, its pid as it
    prints it)."""
    jvm = JvmTarget(command, stderr=subprocess.PIPE, **kwargs)
    return jvm, jvm.out, jvm.err, jvm.ready_pid()


def expect(args, reader, code, needle, what):
    rc, out, err = run_reader(reader, args, timeout=120)
    print(f"{what}: exit {rc}\n  stdout: {out.strip()}\n  stderr: {err.strip()}")
    check(rc == code, f"{what}: exit {rc}, want {code}")
    check(needle in out + err, f"{what}: '{needle}' not in the output")
    errors = [l for l in err.splitlines() if l.startswith("vtctx-reader: attach:")]
    check(code == 0 or len(errors) == 1, f"{what}: want one error line, got {errors}")
    return out, err


def container(args):
    """Own pid and mount namespace, private /tmp; the agent in a directory it cannot see."""
    hidden = tempfile.mkdtemp(prefix="vtctx-attach-agent-")
    agent = os.path.join(hidden, "libvtctx.so")
    shutil.copy(args.agent, agent)
    jvm, out, err, nspid = start_jvm(
        private_tmp_argv([args.classes], [args.java, "-cp", args.classes, "IdleTarget"]))
    try:
        children = open(f"/proc/{jvm.pid}/task/{jvm.pid}/children").read().split()
        check(len(children) == 1, f"unshare has children {children}")
        pid = int(children[0])
        check(pid != nspid, f"the JVM sees pid {nspid}, the same as ours: not in a pid namespace")
        check(not os.path.exists(f"/proc/{pid}/root{hidden}"),
              "the test's agent directory is visible inside the container")
        print(f"container JVM: pid {pid}, pid {nspid} inside")
        r = args.reader
        _, stderr = expect(["attach", "--pid", str(pid), "--agent", agent, "--options", "log=info"],
                           r, 0, "active (attached now; Java ", "container attach")
        check("loaded a private copy at /tmp/vtctx-" in stderr, "no copy of the agent was placed")
        err.wait_for(lambda l: l.startswith("vtctx: active (attached"), 30, "the agent's log")
        rc, res, err_text = run_reader(r, ["resolve", "--attach", "--pid", str(pid), "--agent",
                                           agent])
        check(rc == 0 and "/tmp/vtctx-" in res and "tlsdesc" in res,
              f"resolve after the attach: exit {rc}\n{res}")
        check("active (already active;" in err_text, f"resolve --attach: {err_text}")
        expect(["attach", "--pid", str(pid), "--agent", agent], r, 0, "active (already active;",
               "second attach")
        leftovers = [f for f in os.listdir(f"/proc/{pid}/root/tmp")
                     if f.startswith((".attach_pid", ".vtctx-load-"))]
        check(not leftovers, f"files left in the JVM's /tmp: {leftovers}")
    finally:
        stop_jvm(jvm)
        shutil.rmtree(hidden, ignore_errors=True)


def on_jvm(command, test, **kwargs):
    """Starts a JVM (start_jvm), runs test(pid, stdout reader, stderr reader), stops the JVM."""
    jvm, out, err, pid = start_jvm(command, **kwargs)
    try:
        test(pid, out, err)
    finally:
        stop_jvm(jvm)
    return out


def attached(reader, what, needle="active (attached now;"):
    """A test for on_jvm: attach succeeds and the agent logs that it is active."""
    def test(pid, _, err):
        expect(["attach", "--pid", str(pid)], reader, 0, needle, what)
        err.wait_for(lambda l: l.startswith("vtctx: active (attached"), 30, "the agent's log")
    return test


def refused(reader, code, needle, what, *extra):
    """A test for on_jvm: attach fails with `code` and `needle`."""
    return lambda pid, _, __: expect(["attach", "--pid", str(pid), *extra], reader, code, needle,
                                     what)


def other_user(args):
    def as_nobody():
        os.setgroups([])
        os.setgid(NOBODY)
        os.setuid(NOBODY)

    def test(pid, out, err):
        check(os.stat(f"/proc/{pid}").st_uid == NOBODY, "the JVM does not run as nobody")
        attached(args.reader, "attach as another user, default agent")(pid, out, err)
    on_jvm([args.java, "-cp", readable_by_all(args.classes), "IdleTarget"], test, cwd="/",
           preexec_fn=as_nobody)


def java21(args):
    on_jvm([args.java21, "-cp", args.classes21, "IdleTarget"],
           attached(args.reader, "Java 21", "active (attached now; Java 21."))


def frame_pointer_hint(args):
    def test(pid, _, __):
        rc, _, err = run_reader(args.reader, ["profile", "--attach", "--pid", str(pid), "-d", "1",
                                              "--format", "folded"])
        hints = [l for l in err.splitlines() if "-XX:+PreserveFramePointer" in l]
        print(f"profile --attach without frame pointers: exit {rc}; {hints}")
        check(rc == 0 and len(hints) == 1 and "runs without -XX:+PreserveFramePointer" in hints[0],
              f"want one frame-pointer hint line:\n{err}")
    on_jvm([args.java, "-cp", args.classes, "IdleTarget"], test)


def stopped(reader, code, needle, what):
    """A test for on_jvm: the JVM stopped (SIGSTOP) while attach runs with --timeout 1."""
    def test(pid, _, __):
        os.kill(pid, signal.SIGSTOP)
        try:
            expect(["attach", "--pid", str(pid), "--timeout", "1"], reader, code, needle, what)
        finally:
            os.kill(pid, signal.SIGCONT)
    return test


def errors(args):
    r = args.reader
    idle = [args.java, "-cp", args.classes, "IdleTarget"]

    def bad_then_good(pid, out, err):
        refused(r, 8, "the agent stays inactive: unknown option 'bogus'", "bad agent options",
                "--options", "bogus=1")(pid, out, err)
        # Listener up (the refused load started it): it takes the connection, but a stopped JVM
        # never replies.
        stopped(r, 8, "did not answer its attach operation within 3 s", "stopped JVM, listener up")(
            pid, out, err)
        # The stopped JVM ran the load it had taken once it went on (as with jcmd): active either
        # way.
        expect(["attach", "--pid", str(pid)], r, 0, " active (", "attach after that")
    on_jvm(idle, bad_then_good)
    # Stopped before any attach: its SIGQUIT handler never runs, no listener starts.
    on_jvm(idle, stopped(r, 8, "did not start its attach listener within 1.0 s", "stopped JVM"))
    on_jvm([args.java17, os.path.join(args.sources, "IdleTarget.java")],
           lambda pid, o, e: refused(r, 7, f"pid {pid} runs Java 17", "Java 17")(pid, o, e))
    # The identity channel at startup cannot ask the JNI version before the VM exists: it says
    # once the VM does that it publishes nothing there.
    on_jvm([args.java17, f"-agentpath:{args.agent}=channel=identity",
            os.path.join(args.sources, "IdleTarget.java")],
           lambda pid, o, e: e.wait_for(lambda l: "no JNI 21" in l and "publishes nothing" in l, 30,
                                        "the identity channel's refusal on Java 17"))
    # -Xrs: no SIGQUIT handler, but HotSpot then runs its attach listener from startup.
    on_jvm([args.java, "-Xrs", *idle[1:]], attached(r, "-Xrs"))
    out = on_jvm([args.java, "-XX:+DisableAttachMechanism", *idle[1:]],
                 refused(r, 7, "-XX:+DisableAttachMechanism", "attach off"))
    check(not any("Full thread dump" in l for l in out.all), "SIGQUIT was sent anyway")

    sleeper = subprocess.Popen(["sleep", "60"])
    try:
        refused(r, 7, "is not a HotSpot JVM", "not a JVM")(sleeper.pid, None, None)
    finally:
        sleeper.kill()
        sleeper.wait()

    unprivileged_reader = readable_by_all(r)

    def unprivileged(pid, _, __):
        proc = subprocess.run([unprivileged_reader, "attach", "--pid", str(pid)],
                              capture_output=True, text=True,
                              timeout=60, preexec_fn=lambda: (os.setgid(NOBODY), os.setuid(NOBODY)))
        print(f"unprivileged reader: exit {proc.returncode}: {proc.stderr.strip()}")
        check(proc.returncode == 4 and "no permission" in proc.stderr,
              "an unprivileged reader must get exit 4 'no permission'")
    on_jvm(idle, unprivileged)


def main():
    args = root_test_args("reader", "java", "java17", "java21", "classes21", "agent", "classes",
                          "sources")
    container(args)
    other_user(args)
    java21(args)
    frame_pointer_hint(args)
    errors(args)
    print("PASS")


if __name__ == "__main__":
    main()
