#!/usr/bin/env bash
# `mvn install` of the shim gives io.vtctx:vtctx-shim:<version> in the local repository with its
# -sources.jar and -javadoc.jar: the jar is the module io.vtctx@<version> exporting io.vtctx and
# io.vtctx.otel only, its manifest names title, version and vendor; the javadoc has pages of those
# two packages only. Its POM stands alone (flattened: the version, no parent, no build section,
# no property left), and a project that depends on io.vtctx:vtctx-shim:<version> reads it without
# a warning. The artifact's directory is removed first, so every check is on what this install
# wrote.
#   env: MVN POM JDK_HOME JDK_RANGE VERSION OUT (set by ctest); M2_REPO (default ~/.m2/repository)
set -euo pipefail
fail() { echo "FAIL: $*"; exit 1; }
repo=${M2_REPO:-$HOME/.m2/repository}
dir=$repo/io/vtctx/vtctx-shim/$VERSION
jar=$JDK_HOME/bin/jar
rm -rf "$dir" "$OUT"
mkdir -p "$OUT"
"$MVN" -B -ntp -Dstyle.color=never -f "$POM" "-Drevision=$VERSION" \
  "-Dvtctx.buildDir=$OUT/target" "-Dvtctx.jdkVersion=$JDK_RANGE" -Dmaven.test.skip=true install >"$OUT/mvn.log" 2>&1 ||
  { tail -40 "$OUT/mvn.log"; fail "mvn install"; }

main=$dir/vtctx-shim-$VERSION.jar
for f in "$main" "$dir/vtctx-shim-$VERSION-sources.jar" "$dir/vtctx-shim-$VERSION-javadoc.jar" \
  "$dir/vtctx-shim-$VERSION.pom"; do
  [[ -s $f ]] || fail "mvn install did not give $f: $(ls "$dir" 2>&1 | tr '\n' ' ')"
done

(cd "$OUT" && "$jar" xf "$main" META-INF/MANIFEST.MF)
manifest=$(tr -d '\r' <"$OUT/META-INF/MANIFEST.MF")
for entry in "Implementation-Title: vtctx Java shim" "Implementation-Version: $VERSION" \
  "Implementation-Vendor: vtctx"; do
  grep -qxF "$entry" <<<"$manifest" || fail "manifest lacks '$entry': $manifest"
done

module=$("$jar" --describe-module --file "$main")
[[ $(head -1 <<<"$module") == "io.vtctx@$VERSION "* ]] || fail "module descriptor: $module"
exports=$(grep '^exports ' <<<"$module" | sort | tr '\n' ' ')
[[ $exports == "exports io.vtctx exports io.vtctx.otel " ]] || fail "exports: $exports"

sources=$("$jar" tf "$dir/vtctx-shim-$VERSION-sources.jar")
for f in module-info.java io/vtctx/ThreadContext.java io/vtctx/otel/SpanPublisher.java; do
  grep -qxF "$f" <<<"$sources" || fail "sources jar lacks $f"
done

# Pages: top-level indexes, the module page, and the two exported packages' pages, nothing else.
pages=$("$jar" tf "$dir/vtctx-shim-$VERSION-javadoc.jar" | grep '\.html$')
while read -r page; do
  case $page in
    */*/*) ;;
    */*) [[ $page == io.vtctx/module-summary.html ]] || fail "javadoc page $page" ; continue ;;
    *) continue ;;
  esac
  package=$(dirname "${page#io.vtctx/}")
  [[ $package == io/vtctx || $package == io/vtctx/otel ]] ||
    fail "javadoc page $page is outside the exported packages io.vtctx, io.vtctx.otel"
done <<<"$pages"
for page in io.vtctx/io/vtctx/ThreadContext.html io.vtctx/io/vtctx/otel/package-summary.html; do
  grep -qxF "$page" <<<"$pages" || fail "javadoc lacks $page"
done
# The installed POM: io.vtctx:vtctx-shim:$VERSION itself, nothing a consumer cannot resolve.
pom=$dir/vtctx-shim-$VERSION.pom
pom_text=$(perl -0pe 's/<!--.*?-->//gs' "$pom")
for tag in "<parent>" "<build>" "<modules>" '${'; do
  ! grep -qF -- "$tag" <<<"$pom_text" || fail "the installed POM has $tag: $pom"
done
for line in "  <groupId>io.vtctx</groupId>" "  <artifactId>vtctx-shim</artifactId>" \
  "  <version>$VERSION</version>"; do
  grep -qxF -- "$line" <<<"$pom_text" || fail "the installed POM lacks '$line': $pom"
done
mkdir -p "$OUT/consumer"
cat >"$OUT/consumer/pom.xml" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>io.vtctx.test</groupId>
  <artifactId>shim-consumer</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>io.vtctx</groupId>
      <artifactId>vtctx-shim</artifactId>
      <version>$VERSION</version>
    </dependency>
  </dependencies>
</project>
EOF
"$MVN" -B -ntp -Dstyle.color=never -f "$OUT/consumer/pom.xml" \
  org.apache.maven.plugins:maven-dependency-plugin:3.8.1:tree >"$OUT/consumer.log" 2>&1 ||
  { tail -40 "$OUT/consumer.log"; fail "a project depending on the installed shim"; }
! grep -E '^\[(WARNING|ERROR)\]' "$OUT/consumer.log" ||
  fail "a project depending on the installed shim: warnings ($OUT/consumer.log)"
grep -qF "io.vtctx:vtctx-shim:jar:$VERSION:compile" "$OUT/consumer.log" ||
  { cat "$OUT/consumer.log"; fail "the consumer's dependency tree lacks the shim"; }

echo "installed in $dir: $(ls "$dir" | grep -c '\.jar$') jars, module $(head -1 <<<"$module" | cut -d' ' -f1)," \
  "$(wc -l <<<"$pages") javadoc pages"
echo PASS
