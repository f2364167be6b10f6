#!/usr/bin/env bash
# Runs a program of a JDK installed in another Debian root (scripts/install-deps.sh's sid root with
# JDK 26 and 27) chrooted there, in a mount namespace of its own: to the reader on the host such a
# JVM is a container's (another root, another mount namespace, the host's pid namespace).
#
#   rootedJdk.sh ROOT PROGRAM [ARGS...]     PROGRAM: a path inside ROOT (e.g. .../bin/java)
#
# The process keeps its pid from here to PROGRAM (unshare and chroot exec, nothing forks), so a
# test holds the JVM by the pid it started. Bound into the root at the same paths (gone with the
# namespace, nothing propagates back): /proc (the namespace's own mount), /dev, /sys, and what the
# tests hand the JVM by path: /tmp and /var/tmp (classes, agent copies, attach sockets, output
# files), the directories in VTCTX_ROOTED_BINDS (colon-separated: the source and build trees),
# /opt/vtctx/async-profiler. Needs root (mount namespaces, chroot).
set -euo pipefail
root=$1
shift
[[ -x $root$1 ]] || { echo "rootedJdk.sh: no $1 in $root (scripts/install-deps.sh)" >&2; exit 127; }
binds=/dev:/sys:/tmp:/var/tmp:/opt/vtctx/async-profiler${VTCTX_ROOTED_BINDS:+:$VTCTX_ROOTED_BINDS}
exec unshare --mount --propagation private -- /bin/sh -c '
  root=$1 binds=$2
  shift 2
  mount -t proc proc "$root/proc" || exit 125
  IFS=:
  for dir in $binds; do
    [ -d "$dir" ] || continue
    mkdir -p "$root$dir" && mount --rbind "$dir" "$root$dir" || exit 125
  done
  exec chroot "$root" "$@"' rootedJdk "$root" "$binds" "$@"
