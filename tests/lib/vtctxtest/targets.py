"""Target processes of a test: started so that they die with the driver (PR_SET_PDEATHSIG through
setpriv: a driver killed by ctest's timeout leaves no JVM behind), their output read line by line
with every wait bounded by a deadline that fails the test."""
import atexit
import json
import os
import shutil
import stat
import subprocess
import tempfile

from vtctxtest.checks import fail
from vtctxtest.processes import LineStream, ProcessError


class LineReader(LineStream):
    """A pipe read line by line (processes.LineStream); a wait that runs out fails the test."""

    def __init__(self, stream, echo_prefix=None):
        super().__init__(stream, echo_prefix=echo_prefix)

    def wait_for(self, predicate, timeout, what):
        try:
            return super().wait_for(predicate, timeout, what)
        except ProcessError as e:
            fail(str(e))


def start_target(argv, **popen_args):
    """subprocess.Popen(argv, text=True, **popen_args), the process killed when the driver dies.
    setpriv execs argv: the pid is the target's."""
    return subprocess.Popen(["setpriv", "--pdeathsig", "KILL", "--"] + list(argv), text=True,
                            **popen_args)


def stop_jvm(jvm):
    """Asks a test JVM (reading commands on stdin) to quit, and kills it if it does not within 60 s.
    `jvm` is a Popen or a JvmTarget."""
    jvm = getattr(jvm, "proc", jvm)
    if jvm.poll() is not None:
        return
    try:
        jvm.stdin.write("quit\n")
        jvm.stdin.flush()
        jvm.wait(timeout=60)
    except (BrokenPipeError, subprocess.TimeoutExpired):
        jvm.kill()
        jvm.wait()


def readable_by_all(path):
    """A copy of the file or directory at `path` that every user can read (and run, where it is
    executable), in a new 0755 directory under /var/tmp removed when the driver exits. A build tree
    inside a private (0700) checkout is out of reach of the other users a test runs as."""
    copy = tempfile.mkdtemp(prefix="vtctx-shared-", dir="/var/tmp")
    atexit.register(shutil.rmtree, copy, ignore_errors=True)
    os.chmod(copy, 0o755)
    target = os.path.join(copy, os.path.basename(path.rstrip("/")))
    if os.path.isdir(path):
        shutil.copytree(path, target)
    else:
        shutil.copy2(path, target)
    for root, dirs, files in os.walk(copy):
        for name in dirs:
            os.chmod(os.path.join(root, name), 0o755)
        for name in files:
            file = os.path.join(root, name)
            os.chmod(file, 0o755 if os.stat(file).st_mode & 0o100 else 0o644)
    return target


def clear_stale_attach_socket(pid):
    """Test hygiene on a shared machine: a socket at /tmp/.java_pid<pid> of another user than the
    JVM's was left by an earlier process with this pid (a JVM killed by SIGKILL keeps its socket).
    In a sticky /tmp this JVM cannot replace it, so its attach listener could not start (the reader
    says so: reader.hostile_target's socket_squatter). Removed, and said."""
    path = f"/tmp/.java_pid{pid}"
    try:
        st, jvm_uid = os.lstat(path), os.stat(f"/proc/{pid}").st_uid
    except OSError:
        return
    if stat.S_ISSOCK(st.st_mode) and st.st_uid != jvm_uid:
        os.unlink(path)
        print(f"removed {path} of uid {st.st_uid}: an earlier process's with this pid")


class JvmTarget:
    """A test JVM (or another target with the same protocol): commands on stdin, one per line,
    ending with "quit"; stdout read by `out` (a LineReader echoing "jvm: " lines); with
    stderr=subprocess.PIPE, stderr read by `err`; other popen_args go to subprocess.Popen. As a
    context manager it is stopped on exit."""

    def __init__(self, argv, stderr=None, echo="jvm: ", err_echo="jvm stderr: ", **popen_args):
        self.proc = start_target(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=stderr, **popen_args)
        self.pid = self.proc.pid
        self.out = LineReader(self.proc.stdout, echo_prefix=echo)
        self.err = (LineReader(self.proc.stderr, echo_prefix=err_echo)
                    if stderr == subprocess.PIPE else None)

    def wait_json(self, predicate=lambda l: l.startswith("{"), timeout=120, what="JVM ready"):
        """The first stdout line for which predicate is true, parsed as JSON (the ready line by
        default: the first JSON object the target prints)."""
        return json.loads(self.out.wait_for(predicate, timeout, what))

    def ready_pid(self, timeout=120, what="JVM ready"):
        """The pid in the target's {"event":"ready","pid":P} line (IdleTarget and the like)."""
        pid = self.wait_json(lambda l: '"ready"' in l, timeout, what)["pid"]
        if pid == self.pid:
            clear_stale_attach_socket(pid)
        return pid

    def send(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def stop(self):
        stop_jvm(self.proc)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()
