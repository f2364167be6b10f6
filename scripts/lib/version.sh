# Shared by the scripts: prints the project version of the CMake build tree $1 (CMakeLists.txt's
# `project(vtctx VERSION ...)`, which is also the Maven builds' version: the scripts pass it to
# Maven as -Drevision=..., as CMake and ctest do), or fails.
vtctx_build_version() {
  local cache=$1/CMakeCache.txt version
  version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$cache" 2>/dev/null) || true
  if [[ -z $version ]]; then
    echo "no project version in $cache: configure the build first (cmake -S . -B $1)" >&2
    return 1
  fi
  echo "$version"
}
