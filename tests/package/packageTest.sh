#!/usr/bin/env bash
# The packages users install: cpack on the build tree ctest runs in (a release runs the same cpack
# on a Release tree), then per mode:
#   tarball  unpacks it into a fresh prefix and runs what was installed, nothing of the build tree:
#            the agent loaded into a JVM with the installed shim jar, `vtctx-reader resolve` and a
#            2 s `vtctx-reader profile` that must see the JVM's published trace; `vtctx-reader
#            attach` into a JVM started without the agent finds the installed agent by itself
#            (../lib beside bin/); `--version` and the shim jar's Implementation-Version are the
#            project's
#   deb      its metadata (name, version, Depends: libc6 only) and its exact file list
#   packageTest.sh <source dir> <build dir> <work dir> <jdk home> <mode: tarball|deb>   (root: BPF)
set -euo pipefail
src=$1 build=$2 work=$3 jdk=$4 mode=$5
version=$(sed -n 's/^project(vtctx VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
fail() { echo "FAIL: $*"; exit 1; }

tree=$work/packages  # both modes share the packages: package.deb runs after package.tarball
if [[ $mode == tarball || ! -d $tree ]]; then
  rm -rf "$tree"
  cpack --config "$build/CPackConfig.cmake" -B "$tree" >"$work/cpack.log" 2>&1 ||
    { cat "$work/cpack.log"; fail "cpack"; }
fi
tarball=$tree/vtctx-$version-linux-x86_64.tar.gz
deb=$tree/vtctx_${version}_amd64.deb
[[ -f $tarball && -f $deb ]] || fail "missing $tarball or $deb: $(ls "$tree")"

expected_files="bin/vtctx-reader
lib/libvtctx.so
share/java/vtctx-shim-$version.jar
share/doc/vtctx/LICENSE
share/doc/vtctx/README.md
share/doc/vtctx/docs/design.md"

case $mode in
  tarball)
    prefix=$(mktemp -d "$work/prefix.XXXX")
    tar -xzf "$tarball" -C "$prefix" --strip-components=1
    while read -r f; do [[ -e $prefix/$f ]] || fail "tarball lacks $f"; done <<<"$expected_files"
    (cd "$prefix" && "$jdk/bin/jar" xf "share/java/vtctx-shim-$version.jar" META-INF/MANIFEST.MF)
    grep -qx "Implementation-Version: $version" <(tr -d '\r' <"$prefix/META-INF/MANIFEST.MF") ||
      { cat "$prefix/META-INF/MANIFEST.MF"; fail "the shim jar's Implementation-Version is not $version"; }
    "$jdk/bin/javac" -d "$prefix/smoke" -cp "$prefix/share/java/vtctx-shim-$version.jar" \
      "$src/tests/package/PackageSmoke.java"
    coproc JVM { exec "$jdk/bin/java" "-agentpath:$prefix/lib/libvtctx.so=log=error" \
      -cp "$prefix/share/java/vtctx-shim-$version.jar:$prefix/smoke" PackageSmoke 2>&1; }
    trap 'kill "$JVM_PID" 2>/dev/null || true' EXIT
    read -r -t 60 ready <&"${JVM[0]}" || fail "the JVM did not start"
    [[ $ready == READY* ]] || fail "JVM: $ready"
    pid=${ready#READY }
    reader=$prefix/bin/vtctx-reader
    "$reader" resolve --pid "$pid" >"$work/resolve.out" 2>&1 || { cat "$work/resolve.out"; fail "resolve"; }
    grep -q "7061636b0000000" "$work/resolve.out" || { cat "$work/resolve.out"; fail "resolve saw no published trace"; }
    "$reader" profile --pid "$pid" --duration 2 --group-by trace >"$work/profile.out" 2>"$work/profile.err" ||
      { cat "$work/profile.err"; fail "profile"; }
    grep -q "7061636b0000000" "$work/profile.out" || { cat "$work/profile.out" "$work/profile.err"; fail "no sample of the published traces"; }
    echo "installed agent, shim and reader: $(grep -c 7061636b "$work/profile.out") traces sampled"
    [[ $("$reader" --version) == "vtctx-reader $version" ]] || fail "--version: $("$reader" --version)"
    coproc BARE { exec "$jdk/bin/java" "$src/tests/reader/jvm/IdleTarget.java" 2>&1; }
    trap 'kill "$JVM_PID" "$BARE_PID" 2>/dev/null || true' EXIT
    read -r -t 60 ready <&"${BARE[0]}" || fail "the JVM without agent did not start"
    bare=$(sed -n 's/.*"pid":\([0-9]*\).*/\1/p' <<<"$ready")
    "$reader" attach --pid "$bare" >"$work/attach.out" 2>&1 || { cat "$work/attach.out"; fail "attach"; }
    grep -q "vtctx $version active (attached now" "$work/attach.out" || { cat "$work/attach.out"; fail "attach"; }
    echo "attach with the installed agent: $(cat "$work/attach.out")"
    ;;
  deb)
    info=$(dpkg-deb -f "$deb" Package Version Architecture Depends)
    echo "$info"
    grep -qx "Package: vtctx" <<<"$info" || fail "package name"
    grep -qx "Version: $version" <<<"$info" || fail "version"
    grep -qx "Depends: libc6 (>= [0-9.]*)" <<<"$info" || fail "Depends must name libc6 alone"
    listed=$(dpkg-deb -c "$deb" | awk '$1 !~ /^d/ {sub("^\\./usr/", "", $6); print $6}' | sort)
    [[ $listed == *"$(sort <<<"$expected_files" | head -1)"* ]] || fail "file list: $listed"
    while read -r f; do grep -qx "$f" <<<"$listed" || fail ".deb lacks /usr/$f"; done <<<"$expected_files"
    unexpected=$(grep -v -e '^share/doc/vtctx/' <<<"$listed" | grep -vxF "$expected_files" || true)
    [[ -z $unexpected ]] || fail ".deb has files outside the layout: $unexpected"
    echo "deb: $(wc -l <<<"$listed") files, layout as expected"
    ;;
  *) fail "mode $mode" ;;
esac
echo PASS
