#!/usr/bin/env bash
# The packages on a fresh Debian 12 (bookworm) root, by hand: NOT part of CI (it needs root, the
# network to deb.debian.org and several minutes).
#
#   tests/package/debian12Root.sh <package dir> [root dir (/tmp/deb12)] [JDK (Temurin 25)]
#
# <package dir> holds vtctx_<version>_amd64.deb and vtctx-<version>-linux-x86_64.tar.gz (cpack in a
# build tree, e.g. build/tests/package/work/packages after ctest -R package). The root is made by
# debootstrap --variant=minbase unless it already holds a bookworm system. Only /proc, /sys, /dev
# and the JDK (read-only, Debian 12's own openjdk-17 has no virtual threads) are bind-mounted in.
# For the .deb (dpkg -i inside the chroot, /usr) and then the tarball (unpacked into /opt, the .deb
# purged first), inside the chroot: `vtctx-reader --version` is the project's; ldd of the reader
# and the agent lists glibc only; a JVM with -agentpath and the installed shim jar goes active
# with the project's version and publishes; the installed reader's `resolve --pid` and
# `profile --pid P --duration 2` see its traces.
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
packages=$(cd "$1" && pwd)
root=${2:-/tmp/deb12}
jdk=${3:-/usr/lib/jvm/temurin-25-jdk-amd64}
version=$(sed -n 's/^project(vtctx VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
deb=$packages/vtctx_${version}_amd64.deb
tarball=$packages/vtctx-$version-linux-x86_64.tar.gz
fail() { echo "FAIL: $*"; exit 1; }
[[ $(id -u) == 0 ]] || fail "needs root (chroot, mounts, BPF)"
[[ -f $deb && -f $tarball ]] || fail "no $deb or $tarball"
[[ -x $jdk/bin/java ]] || fail "no JDK at $jdk"

if ! grep -qs '^VERSION_CODENAME=bookworm$' "$root/etc/os-release"; then
  command -v debootstrap >/dev/null || apt-get install -y debootstrap
  echo "debootstrap: bookworm (minbase) into $root"
  debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian >"$root.debootstrap.log" 2>&1 ||
    { tail -20 "$root.debootstrap.log"; fail "debootstrap"; }
fi
echo "root: $root, Debian $(cat "$root/etc/debian_version"), $(chroot "$root" ldd --version | head -1)"

mounts=()
cleanup() {
  [[ -n ${jvm_pid:-} ]] && kill "$jvm_pid" 2>/dev/null || true
  for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount -R "${mounts[i]}" 2>/dev/null || true; done
}
trap cleanup EXIT
bind() {  # bind <host path> [ro]: the same path inside the root; rslave so nothing propagates back
  mkdir -p "$root$1"
  mount --rbind "$1" "$root$1"
  mount --make-rslave "$root$1"
  [[ ${2:-} == ro ]] && mount -o remount,bind,ro "$root$1"
  mounts+=("$root$1")
}
bind /proc
bind /sys
bind /dev
bind "$jdk" ro
mkdir -p "$root/tmp/vtctx-check"
cp "$src/tests/package/PackageSmoke.java" "$deb" "$root/tmp/vtctx-check/"
in_root() { chroot "$root" "$@"; }

glibc_only() {  # glibc_only <path in root>
  local out
  out=$(in_root ldd "$1")
  echo "ldd $1:"; sed 's/^/  /' <<<"$out"
  while read -r lib _; do
    case $lib in
      linux-vdso.so.1 | libc.so.6 | libm.so.6 | libpthread.so.0 | libdl.so.2 | librt.so.1 | \
        /lib64/ld-linux-x86-64.so.2) ;;
      *) fail "$1 needs $lib (not glibc)" ;;
    esac
  done <<<"$out"
  ! grep -q "not found" <<<"$out" || fail "$1: a library is not found"
}

check_install() {  # check_install <prefix in root>
  local prefix=$1 reader=$1/bin/vtctx-reader agent=$1/lib/libvtctx.so
  local shim=$1/share/java/vtctx-shim-$version.jar line pid
  echo "== $prefix"
  [[ $(in_root "$reader" --version) == "vtctx-reader $version" ]] ||
    fail "--version: $(in_root "$reader" --version)"
  echo "vtctx-reader --version: $(in_root "$reader" --version)"
  glibc_only "$reader"
  glibc_only "$agent"
  in_root "$jdk/bin/javac" -d /tmp/vtctx-check/smoke -cp "$shim" /tmp/vtctx-check/PackageSmoke.java
  coproc JVM { exec chroot "$root" "$jdk/bin/java" "-agentpath:$agent=log=info" \
    -cp "$shim:/tmp/vtctx-check/smoke" PackageSmoke 2>&1; }
  jvm_pid=$JVM_PID
  local active=""
  while read -r -t 60 line <&"${JVM[0]}"; do
    echo "jvm: $line"
    [[ $line == "vtctx: active (startup, vtctx $version, "* ]] && active=yes
    [[ $line == READY* ]] && break
  done
  [[ $line == READY* ]] || fail "the JVM in the root did not start"
  [[ -n $active ]] || fail "the agent did not go active with version $version"
  pid=${line#READY }
  in_root "$reader" resolve --pid "$pid" >"$root/tmp/vtctx-check/resolve.out" 2>&1 ||
    { cat "$root/tmp/vtctx-check/resolve.out"; fail "resolve"; }
  grep -q "7061636b0000000" "$root/tmp/vtctx-check/resolve.out" ||
    { cat "$root/tmp/vtctx-check/resolve.out"; fail "resolve saw no published trace"; }
  grep -E "vtctx.version|7061636b" "$root/tmp/vtctx-check/resolve.out" | head -3 | sed 's/^/resolve: /'
  in_root "$reader" profile --pid "$pid" --duration 2 --group-by trace \
    >"$root/tmp/vtctx-check/profile.out" 2>"$root/tmp/vtctx-check/profile.err" ||
    { cat "$root/tmp/vtctx-check/profile.err"; fail "profile"; }
  grep -q "7061636b0000000" "$root/tmp/vtctx-check/profile.out" ||
    { cat "$root/tmp/vtctx-check/profile.out"; fail "profile sampled none of the published traces"; }
  echo "profile: $(grep -c 7061636b "$root/tmp/vtctx-check/profile.out") traces sampled;" \
    "$(tail -1 "$root/tmp/vtctx-check/profile.err")"
  kill "$jvm_pid"
  wait "$jvm_pid" 2>/dev/null || true
  jvm_pid=
}

in_root dpkg -i "/tmp/vtctx-check/$(basename "$deb")"
check_install /usr
in_root dpkg --purge vtctx
tar -xzf "$tarball" -C "$root/opt"
check_install "/opt/vtctx-$version-linux-x86_64"
rm -rf "$root/opt/vtctx-$version-linux-x86_64"
echo PASS
