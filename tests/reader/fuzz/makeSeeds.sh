#!/usr/bin/env bash
# Regenerates the committed seed corpus of elfFuzzer: tiny ELF objects (about 2 KB each, no libc,
# small page size, no .comment) that define otel_thread_ctx_v1 in every access model the reader
# classifies, plus one that does not. Run from anywhere; writes into ./seeds next to this script.
set -euo pipefail
out="$(cd "$(dirname "$0")" && pwd)/seeds"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/lib.c" <<'C'
__attribute__((visibility("default"))) __thread void* otel_thread_ctx_v1;
__attribute__((visibility("default"))) __thread char other[24] = {1};
#ifdef HIDDEN_ALIAS
extern __thread void* local_alias __attribute__((alias("otel_thread_ctx_v1"), visibility("hidden")));
void** slot(void) { return &local_alias; }
#else
void** slot(void) { return &otel_thread_ctx_v1; }
#endif
#ifdef EXE
void _start(void) { *slot() = 0; for (;;) {} }
#endif
C
echo 'void* f(void) { return 0; }' >"$tmp/plain.c"
small=(-O1 -nostdlib -Wl,-z,max-page-size=0x40,-z,common-page-size=0x40,-z,noseparate-code
       -Wl,--build-id=none,--hash-style=gnu,-z,norelro,-z,now -s)
build() {  # name, flags...
  local name=$1; shift
  gcc "${small[@]}" "$@"
  objcopy --remove-section .comment "$tmp/a.out" "$out/$name.elf"
}
mkdir -p "$out"
build tlsdesc -shared -fPIC -mtls-dialect=gnu2 "$tmp/lib.c" -o "$tmp/a.out"
build gd -shared -fPIC -mtls-dialect=gnu "$tmp/lib.c" -o "$tmp/a.out"
build ie -shared -fPIC -ftls-model=initial-exec "$tmp/lib.c" -o "$tmp/a.out"
build hidden -shared -fPIC -mtls-dialect=gnu2 -DHIDDEN_ALIAS "$tmp/lib.c" -o "$tmp/a.out"
build exe-le -fPIE -pie -DEXE -Wl,--export-dynamic-symbol=otel_thread_ctx_v1 "$tmp/lib.c" -o "$tmp/a.out"
build plain -shared -fPIC "$tmp/plain.c" -o "$tmp/a.out"
ls -l "$out"
