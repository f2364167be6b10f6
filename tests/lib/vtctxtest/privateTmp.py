"""A command line that runs a command as in a container: its own pid and mount namespace with a
private /tmp (a fresh tmpfs), so the JVM's attach files and perf map live where only
/proc/<pid>/root reaches them. Paths a test needs inside (a build tree, a class path) stay visible
even when they lie under /tmp: they are bound back into the fresh tmpfs, and nothing else of the
host's /tmp is.
"""

# $1.. up to "--": the paths to keep; after it, the command. The host's /tmp is reached through a
# bind on a directory of /dev/shm (not under /tmp), which is unmounted and removed before the exec.
_SCRIPT = r"""set -e
keep=$(mktemp -d /dev/shm/vtctx-tmp.XXXXXX)
mount --bind /tmp "$keep"
mount -t tmpfs -o mode=1777 tmpfs /tmp
while [ "$1" != -- ]; do
  case $1 in
    /tmp/*) mkdir -p "$1"; mount --bind "$keep${1#/tmp}" "$1" ;;
  esac
  shift
done
shift
umount "$keep"
rmdir "$keep"
exec "$@"
"""


def private_tmp_argv(keep, argv):
    """unshare + sh argv that runs `argv` with a private /tmp, `keep` (absolute paths) visible.
    The process started is unshare; the command is its only child (another pid inside)."""
    return ["unshare", "--pid", "--mount", "--fork", "--propagation", "private", "sh", "-c",
            _SCRIPT, "sh", *keep, "--", *argv]
