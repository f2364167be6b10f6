#!/usr/bin/env python3
"""vtctx-reader as root against hostile targets, as an attacker would try it (docs/reader.md,
"Threat model"). Every case failed on b99918f:

  - socket_symlink: a container's /tmp/.java_pid<N> is a symlink to a host JVM's attach socket;
    the host JVM must not get the agent.
  - foreign_writer: a JVM that already has another OTEP 4947 writer (a JVMTI agent defining
    otel_thread_ctx_v1): its path must not be handed back to the JVM (its Agent_OnAttach must
    not run); the attach is refused.
  - planted_copy: a third user plants a FIFO, then a same-bytes file of theirs, where the agent
    copy used to go: the attach neither hangs nor loads their file.
  - report_swap: the target's user replaces the report file by a symlink to /etc/shadow, a FIFO,
    or grows it to 100 GiB, and writes escape bytes into it: no shadow line, no hang, no crash,
    no raw escape byte in the output.
  - huge_perfdata: the target's user grows its hsperfdata file to 100 GiB: the attach works.
  - symlinked_tmp: a chroot'ed JVM whose /tmp is an absolute symlink to a host directory: nothing
    is written into the host directory.
  - fake_jvm: a process that only looks like a JVM: a full listen backlog (connect must time out),
    an endless reply (bounded), a forged "active" report with escape bytes (exit 8, escaped);
    --timeout 1e9 (refused as a usage error).
  - reader_killed: the reader killed with SIGKILL mid-attach leaves no file in the JVM's /tmp.
  - socket_squatter: a third user's file at the JVM's attach socket path: exit 8 at once naming
    it (not a wait for a listener that cannot start), no SIGQUIT; the attach works once it is gone.
  - attach_off_no_perfdata: -XX:+DisableAttachMechanism -XX:-UsePerfData: exit 7 and no thread
    dump in the service's output (no SIGQUIT sent).

  hostileTargetTest.py --reader R --java J --jcmd JCMD --agent libvtctx.so --classes DIR
                       --fake-writer libctxfix_agent.so
"""
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time

from vtctxtest import JvmTarget, check, readable_by_all, root_test_args, run_reader, stop_jvm
from vtctxtest.privateTmp import private_tmp_argv

NOBODY = 65534
# Helpers that run as another user need an interpreter that user can run (not root's pyenv).
SYSTEM_PYTHON = "/usr/bin/python3"
ATTACKER = 4242  # a third user, neither root nor the JVM's


def as_user(uid):
    def drop():
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)
    return drop


def start_jvm(args, *jvm_args, preexec_fn=None, argv=None, cwd=None):
    """An IdleTarget JVM; returns (process, stdout reader, stderr reader, pid it reports)."""
    command = argv or [args.java, *jvm_args, "-cp", args.classes, "IdleTarget"]
    jvm = JvmTarget(command, stderr=subprocess.PIPE, preexec_fn=preexec_fn, cwd=cwd)
    return jvm, jvm.out, jvm.err, jvm.ready_pid()


def inner_pid(wrapper):
    """The pid of the only child of an unshare wrapper (the command it runs)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        children = open(f"/proc/{wrapper.pid}/task/{wrapper.pid}/children").read().split()
        if children:
            return int(children[0])
        time.sleep(0.01)
    check(False, "the wrapper never started its command")


def maps_of(pid):
    return open(f"/proc/{pid}/maps").read()


_MAX_RSS = r"""
import resource, subprocess, sys
rc = subprocess.run(sys.argv[1:]).returncode
print("max-rss-kib %d" % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)
sys.exit(rc)
"""


def attach(args, pid, *extra, timeout=90, rss=None):
    """`vtctx-reader attach`; returns (exit code, stdout + stderr). With `rss` (a list), appends
    the reader's peak resident memory in KiB."""
    command = [args.reader, "attach", "--pid", str(pid), *extra]
    if rss is not None:
        command = [sys.executable, "-c", _MAX_RSS, *command]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    rc, out, err = proc.returncode, proc.stdout, proc.stderr
    if rss is not None:
        rss.append(int(err.strip().splitlines()[-1].split()[-1]))
        err = "\n".join(err.strip().splitlines()[:-1])
    print(f"attach {pid} {' '.join(extra)}: exit {rc}\n  stdout: {out.strip()}\n"
          f"  stderr: {err.strip()}")
    return rc, out + err


def no_raw_escapes(text, what):
    check("\x1b" not in text and "\x9b" not in text, f"{what}: a raw escape byte reached the output")


def hidden_agent(args):
    """A copy of the agent in a root-only directory: no JVM of another user or namespace sees it,
    so the reader must place a copy."""
    hidden = tempfile.mkdtemp(prefix="vtctx-hostile-agent-", dir="/var/tmp")
    os.chmod(hidden, 0o700)
    agent = os.path.join(hidden, "libvtctx.so")
    shutil.copy(args.agent, agent)
    return hidden, agent


def socket_symlink(args):
    host, _, _, host_pid = start_jvm(args)
    container = None
    try:
        # The host JVM's listener is up (a jcmd), its socket in the host's /tmp.
        subprocess.run([args.jcmd, str(host_pid), "VM.version"], check=True, capture_output=True,
                       timeout=60)
        check(os.path.exists(f"/tmp/.java_pid{host_pid}"), "the host JVM has no attach socket")
        container = JvmTarget(
            private_tmp_argv([args.classes, os.path.dirname(os.path.abspath(args.agent))],
                             [args.java, "-cp", args.classes, "IdleTarget"]),
            stderr=subprocess.PIPE, echo="container: ", err_echo="container stderr: ")
        nspid = container.ready_pid(what="container JVM ready")
        pid = inner_pid(container)
        # What the container's root can do: its /tmp/.java_pid<N> names the host's socket.
        os.symlink(f"/tmp/.java_pid{host_pid}", f"/proc/{pid}/root/tmp/.java_pid{nspid}")
        rc, text = attach(args, pid, "--agent", args.agent)
        check("libvtctx" not in maps_of(host_pid),
              "the host JVM loaded the agent meant for the container (container escape)")
        check(rc == 0 and "libvtctx" in maps_of(pid),
              f"the container JVM did not get the agent (exit {rc}): {text}")
    finally:
        stop_jvm(host)
        if container:
            stop_jvm(container)


def foreign_writer(args):
    jvm, _, err, pid = start_jvm(args, f"-agentpath:{args.fake_writer}")
    try:
        err.wait_for(lambda l: "FAKE WRITER: Agent_OnLoad" in l, 30, "the fake writer's load")
        rc, text = attach(args, pid, "--agent", args.agent)
        check(rc == 7 and "not vtctx" in text, f"want exit 7 'not vtctx', got {rc}: {text}")
        check(not any("Agent_OnAttach" in l for l in err.all),
              "the target's own writer was attached again with vtctx's options")
        check("libvtctx" not in maps_of(pid), "vtctx was loaded beside another writer")
    finally:
        stop_jvm(jvm)


def fnv1a(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def planted_copy(args):
    hidden, agent = hidden_agent(args)
    old_name = f"/tmp/vtctx-{fnv1a(open(agent, 'rb').read()):016x}-libvtctx.so"
    try:
        for plant in ("fifo", "file"):
            if os.path.lexists(old_name):
                os.unlink(old_name)
            # The attacker can read the agent's bytes (the same build anyone can download).
            source = f"/var/tmp/vtctx-hostile-bytes-{os.getpid()}"
            shutil.copy(agent, source)
            os.chmod(source, 0o644)
            command = (f"mkfifo -m 666 {old_name}" if plant == "fifo"
                       else f"cp {source} {old_name} && chmod 666 {old_name}")
            p = subprocess.run(["setpriv", f"--reuid={ATTACKER}", f"--regid={ATTACKER}",
                                "--clear-groups", "sh", "-c", command])
            os.unlink(source)
            check(p.returncode == 0 and os.path.lexists(old_name), f"could not plant the {plant}")
            jvm, _, _, pid = start_jvm(args, preexec_fn=as_user(NOBODY), cwd="/")
            try:
                start = time.monotonic()
                try:
                    rc, text = attach(args, pid, "--agent", agent, "--timeout", "5", timeout=60)
                except subprocess.TimeoutExpired:
                    check(False, f"planted {plant}: the attach hung")
                check(time.monotonic() - start < 45, f"planted {plant}: the attach took too long")
                check(rc == 0, f"planted {plant}: attach failed: {text}")
                loaded = [l.split()[-1] for l in maps_of(pid).splitlines() if "libvtctx" in l]
                check(loaded, f"planted {plant}: no agent mapped")
                owner = os.stat(f"/proc/{pid}/root{loaded[0]}").st_uid
                check(owner in (0, NOBODY) and loaded[0] != old_name,
                      f"planted {plant}: the JVM loaded {loaded[0]} of uid {owner}")
            finally:
                stop_jvm(jvm)
    finally:
        if os.path.lexists(old_name):
            os.unlink(old_name)
        shutil.rmtree(hidden, ignore_errors=True)


class ReportSwapper:
    """As the JVM's user: watches /tmp for the reader's report files and attacks each one."""

    def __init__(self, mode):
        self.mode = mode
        self.stop = threading.Event()
        self.hits = []
        self.proc = subprocess.Popen([SYSTEM_PYTHON, "-c", _SWAPPER, mode],
                                     preexec_fn=as_user(NOBODY), stdout=subprocess.PIPE, text=True)
        self.ready = self.proc.stdout.readline()

    def close(self):
        self.proc.kill()
        self.proc.wait()


_SWAPPER = r"""
import os, sys, time
mode = sys.argv[1]
print("ready", flush=True)
seen = set()
while True:
    for name in os.listdir("/tmp"):
        if not name.startswith(".vtctx-load-") or name in seen:
            continue
        path = "/tmp/" + name
        seen.add(name)
        try:
            if mode == "grow":
                with open(path, "r+b") as f:
                    f.write(b"active vtctx=0.1.0\x1b[2J\x1b[31m load=attached options=x\n")
                os.truncate(path, 100 << 30)
            else:
                os.unlink(path)
                if mode == "shadow":
                    os.symlink("/etc/shadow", path)
                else:
                    os.mkfifo(path, 0o600)
        except OSError:
            pass
    time.sleep(0.0005)
"""


def report_swap(args):
    shadow_first = open("/etc/shadow").readline().strip()
    for mode in ("shadow", "fifo", "grow"):
        jvm, _, _, pid = start_jvm(args, preexec_fn=as_user(NOBODY), cwd="/")
        swapper = ReportSwapper(mode)
        try:
            start = time.monotonic()
            try:
                rc, text = attach(args, pid, "--timeout", "5", timeout=60)
            except subprocess.TimeoutExpired:
                check(False, f"report {mode}: the attach hung")
            print(f"report {mode}: exit {rc} after {time.monotonic() - start:.1f} s")
            check(shadow_first not in text, f"report {mode}: /etc/shadow reached the output")
            no_raw_escapes(text, f"report {mode}")
            check(rc in (0, 8), f"report {mode}: exit {rc} (want 0, or 8 with a reason)")
            check("libvtctx" in maps_of(pid), f"report {mode}: the agent was not loaded")
            # The JVM's attach listener still serves (a FIFO report never blocked it).
            try:
                served = subprocess.run([args.jcmd, str(pid), "VM.version"], capture_output=True,
                                        text=True, timeout=30)
            except subprocess.TimeoutExpired:
                check(False, f"report {mode}: the JVM's attach listener is stuck")
            check(served.returncode == 0, f"report {mode}: jcmd failed: {served.stderr}")
        finally:
            swapper.close()
            stop_jvm(jvm)


def huge_perfdata(args):
    jvm, _, _, pid = start_jvm(args, preexec_fn=as_user(NOBODY), cwd="/")
    try:
        nspid_file = f"/tmp/hsperfdata_nobody/{pid}"
        check(os.path.exists(nspid_file), f"no {nspid_file}")
        subprocess.run(["truncate", "-s", "100G", nspid_file], check=True,
                       preexec_fn=as_user(NOBODY))
        try:
            rc, text = attach(args, pid, "--timeout", "5", timeout=60)
        except subprocess.TimeoutExpired:
            check(False, "attach with a 100 GiB perf-data file: no answer in 60 s")
        check(rc == 0, f"attach with a 100 GiB perf-data file: exit {rc}: {text}")
    finally:
        stop_jvm(jvm)


# The chroot's own root: the JDK (/usr), /etc, /dev, /proc, the test classes at /vtctx-classes
# (not at their own path: a build tree under /tmp would make /tmp a directory), and /tmp an
# absolute symlink to a directory the host has at the same path.
_CHROOT = r"""set -e
root=$(mktemp -d /dev/shm/vtctx-croot.XXXXXX)
mount -t tmpfs tmpfs "$root"
for d in usr etc dev proc; do mkdir -p "$root/$d"; done
for l in lib lib64 bin sbin; do [ -e "/$l" ] && ln -s "usr/$l" "$root/$l"; done
mount --rbind /usr "$root/usr"
mount --bind /etc "$root/etc"
mount --rbind /dev "$root/dev"
mount -t proc proc "$root/proc"
mkdir -p "$root/vtctx-classes"; mount --bind "$1" "$root/vtctx-classes"
mkdir -p "$root$2"; chmod 1777 "$root$2"; ln -s "$2" "$root/tmp"
shift 2
exec chroot "$root" "$@"
"""


def symlinked_tmp(args):
    hidden, agent = hidden_agent(args)
    host_dir = tempfile.mkdtemp(prefix="vtctx-hostile-host-", dir="/var/tmp")
    os.chmod(host_dir, 0o1777)
    wrapper = JvmTarget(
        ["unshare", "--pid", "--mount", "--fork", "--propagation", "private", "sh", "-c",
         _CHROOT, "sh", args.classes, host_dir, args.java, "-cp", "/vtctx-classes", "IdleTarget"],
        stderr=subprocess.PIPE, echo="chroot: ", err_echo="chroot stderr: ")
    try:
        wrapper.ready_pid(what="chroot JVM ready")
        pid = inner_pid(wrapper)
        check(os.path.islink(f"/proc/{pid}/root/tmp"), "the chroot's /tmp is not a symlink")
        rc, text = attach(args, pid, "--agent", agent, "--timeout", "5")
        check(os.listdir(host_dir) == [],
              f"the reader wrote into the host directory {host_dir}: {os.listdir(host_dir)}")
        check(rc == 0 and "libvtctx" in maps_of(pid), f"chroot JVM: exit {rc}: {text}")
    finally:
        stop_jvm(wrapper)
        shutil.rmtree(host_dir, ignore_errors=True)
        shutil.rmtree(hidden, ignore_errors=True)


_FAKE_JVM = r"""
import mmap, os, re, signal, socket, sys, time
mode, libjvm = sys.argv[1], sys.argv[2]
signal.signal(signal.SIGQUIT, lambda *a: None)
f = open(libjvm, "rb")
m = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)  # "libjvm.so mapped": looks like HotSpot
path = "/tmp/.java_pid%d" % os.getpid()
s = socket.socket(socket.AF_UNIX)
s.bind(path)
s.listen(0)
if mode == "backlog":
    filler = socket.socket(socket.AF_UNIX)
    filler.connect(path)  # the one pending connection a backlog of 0 allows: now it is full
print('{"event":"ready","pid":%d}' % os.getpid(), flush=True)
while True:
    if mode == "backlog":
        time.sleep(1)
        continue
    c, _ = s.accept()
    request = c.recv(65536)
    if mode == "flood":
        chunk = b"0\n" + b"x" * 65534
        try:
            while True:
                c.sendall(chunk)
        except OSError:
            pass
    elif mode == "liar":
        report = re.search(rb"report=([^\0,]+)", request).group(1).decode()
        with open(report, "w") as r:
            r.write("active vtctx=0.1.0\x1b[2J load=attached java=25\x9b record_size=64 records=1 "
                    "bind=mount options=\x1b]0;owned\x07\n")
        c.sendall(b"0\nreturn code: 0\n")
    c.close()
"""


def fake_jvm(args):
    workdir = tempfile.mkdtemp(prefix="vtctx-fake-jvm-", dir="/var/tmp")
    libjvm = os.path.join(workdir, "libjvm.so")
    shutil.copy("/usr/bin/true", libjvm)  # an ELF without HotSpot in it: only the name is
    os.chmod(workdir, 0o755)
    try:
        for mode in ("backlog", "flood", "liar"):
            fake = subprocess.Popen([SYSTEM_PYTHON, "-c", _FAKE_JVM, mode, libjvm],
                                    stdout=subprocess.PIPE, text=True, preexec_fn=as_user(NOBODY),
                                    cwd="/")
            try:
                line = fake.stdout.readline()
                check('"ready"' in line, f"fake JVM {mode}: {line}")
                start = time.monotonic()
                rss = []
                try:
                    rc, text = attach(args, fake.pid, "--timeout", "1", timeout=60, rss=rss)
                except subprocess.TimeoutExpired:
                    check(False, f"fake JVM {mode}: the attach hung past --timeout")
                took = time.monotonic() - start
                rss_kib = rss[0]
                print(f"fake JVM {mode}: exit {rc} after {took:.1f} s, max RSS {rss_kib} KiB")
                no_raw_escapes(text, f"fake JVM {mode}")
                check(rc == 8, f"fake JVM {mode}: exit {rc}, want 8")
                check(took < 20, f"fake JVM {mode}: took {took:.1f} s with --timeout 1")
                if mode == "flood":
                    check(rss_kib < 200 * 1024, f"fake JVM flood: the reader grew to {rss_kib} KiB")
                    check("more than" in text, f"fake JVM flood: {text}")
                if mode == "liar":
                    check("does not map" in text, f"fake JVM liar: {text}")
            finally:
                fake.kill()
                fake.wait()
                if os.path.exists(f"/tmp/.java_pid{fake.pid}"):
                    os.unlink(f"/tmp/.java_pid{fake.pid}")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    rc, out, err = run_reader(args.reader, ["attach", "--pid", "1", "--timeout", "1e9"])
    print(f"--timeout 1e9: exit {rc}: {err.strip()}")
    check(rc == 2 and "--timeout" in err, "--timeout 1e9 must be a usage error (exit 2)")


def reader_killed(args):
    jvm, _, _, pid = start_jvm(args, preexec_fn=as_user(NOBODY), cwd="/")
    try:
        # Listener up (a refused load), then the JVM stopped: the next load waits for its reply.
        rc, _ = attach(args, pid, "--options", "bogus=1")
        check(rc == 8, "the refused load did not run")
        os.kill(pid, signal.SIGSTOP)
        before = {f for f in os.listdir("/tmp") if f.startswith(".vtctx-load-")}
        reader = subprocess.Popen([args.reader, "attach", "--pid", str(pid), "--timeout", "30"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        report = []
        while not report and time.monotonic() < deadline:
            report = [f for f in os.listdir("/tmp")
                      if f.startswith(".vtctx-load-") and f not in before]
            time.sleep(0.01)
        check(report, "the reader never created its report file")
        reader.kill()
        reader.wait()
        deadline = time.monotonic() + 10
        while os.path.exists(f"/tmp/{report[0]}") and time.monotonic() < deadline:
            time.sleep(0.01)
        check(not os.path.exists(f"/tmp/{report[0]}"),
              f"/tmp/{report[0]} left behind by the killed reader")
    finally:
        os.kill(pid, signal.SIGCONT)
        stop_jvm(jvm)


def socket_squatter(args):
    """A third user's file where the JVM's attach socket goes (/tmp/.java_pid<pid>, sticky /tmp:
    the JVM cannot replace it; root's stale socket of an earlier process with the pid does the
    same): the attach says so at once, sends no SIGQUIT, and works once the file is gone."""
    jvm, out, _, pid = start_jvm(args, preexec_fn=as_user(NOBODY), cwd="/")
    squat = f"/tmp/.java_pid{pid}"
    try:
        p = subprocess.run(["setpriv", f"--reuid={ATTACKER}", f"--regid={ATTACKER}",
                            "--clear-groups", "touch", squat])
        check(p.returncode == 0, f"could not plant {squat}")
        start = time.monotonic()
        rc, text = attach(args, pid, timeout=60)
        took = time.monotonic() - start
        check(rc == 8 and squat in text and f"uid {ATTACKER}" in text and took < 5,
              f"squatted socket path: exit {rc} after {took:.1f} s: {text}")
        check(not any("Full thread dump" in l for l in out.all),
              "SIGQUIT was sent: the JVM printed a thread dump")
        os.unlink(squat)
        rc, text = attach(args, pid, timeout=60)
        check(rc == 0 and "libvtctx" in maps_of(pid), f"after the file was removed: exit {rc}: "
                                                      f"{text}")
    finally:
        if os.path.lexists(squat) and os.lstat(squat).st_uid == ATTACKER:
            os.unlink(squat)
        stop_jvm(jvm)


def attach_off_no_perfdata(args):
    jvm, out, _, pid = start_jvm(args, "-XX:+DisableAttachMechanism", "-XX:-UsePerfData")
    try:
        rc, text = attach(args, pid, "--timeout", "2")
        check(rc == 7 and "-XX:+DisableAttachMechanism" in text, f"exit {rc}: {text}")
        check(not any("Full thread dump" in l for l in out.all),
              "SIGQUIT was sent: the service printed a thread dump")
    finally:
        stop_jvm(jvm)


def main():
    args = root_test_args("reader", "java", "jcmd", "agent", "classes", "fake-writer")
    args.classes = readable_by_all(args.classes)  # its JVMs run as nobody
    only = os.environ.get("HOSTILE_ONLY", "")
    for case in (socket_symlink, foreign_writer, planted_copy, report_swap, huge_perfdata,
                 symlinked_tmp, fake_jvm, reader_killed, socket_squatter,
                 attach_off_no_perfdata):
        if only and case.__name__ not in only.split(","):
            continue
        print(f"--- {case.__name__}", flush=True)
        case(args)
    print("PASS")


if __name__ == "__main__":
    main()
