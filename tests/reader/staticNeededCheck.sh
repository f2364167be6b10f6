#!/usr/bin/env bash
# vtctx-reader is linked statically but for glibc (like libbpf-tools): its NEEDED entries must be
# glibc's alone, so one binary runs on any glibc host without libbpf, libelf, zlib or abseil.
# Also checks that --version prints the project version CMake was configured with.
#   staticNeededCheck.sh <vtctx-reader> <version>
set -euo pipefail
reader=$1
version=$2
fail=0
needed=$(readelf -W -d "$reader" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort | tr '\n' ' ')
for n in $needed; do
  case $n in
    libc.so.6 | libm.so.6 | ld-linux-x86-64.so.2 | ld-linux-aarch64.so.1) ;;
    *) echo "FAIL: vtctx-reader depends on $n (link it statically)"; fail=1 ;;
  esac
done
echo "needs: $needed"
got=$("$reader" --version)
if [[ "$got" != "vtctx-reader $version" ]]; then
  echo "FAIL: --version printed '$got', want 'vtctx-reader $version'"
  fail=1
fi
((fail == 0)) && echo PASS
exit $fail
