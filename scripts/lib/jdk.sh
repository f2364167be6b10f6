# Shared by the scripts: prints the home of a JDK >= 21 (JAVA_HOME first, else the newest under
# /usr/lib/jvm), or fails. Same rule as cmake/FindJdk.cmake.
vtctx_jdk_major() {
  local home=$1 line
  [[ -x "$home/bin/javac" && -f "$home/include/jvmti.h" && -f "$home/release" ]] || return 1
  line=$(grep '^JAVA_VERSION=' "$home/release") || return 1
  line=${line#JAVA_VERSION=\"}
  echo "${line%%[.\"]*}"
}

vtctx_find_jdk() {
  local best="" best_major=0 home major
  if [[ -n "${JAVA_HOME:-}" ]] && major=$(vtctx_jdk_major "$JAVA_HOME") && ((major >= 21)); then
    echo "$JAVA_HOME"
    return 0
  fi
  for home in "${VTCTX_JDK_SEARCH_DIR:-/usr/lib/jvm}"/*; do
    major=$(vtctx_jdk_major "$home") || continue
    if ((major >= 21 && major > best_major)); then
      best=$home
      best_major=$major
    fi
  done
  [[ -n "$best" ]] || return 1
  echo "$best"
}
