#!/usr/bin/env bash
# Checks libvtctx.so against OTEP 4947 and our own rules:
#  - otel_thread_ctx_v1: TLS, GLOBAL, DEFAULT, 8 bytes, defined, in .dynsym;
#  - an R_X86_64_TLSDESC relocation names it (the access model readers classify), and no other
#    relocation does (an access the compiler made in another model, e.g. DTPMOD64);
#  - bound at load (BIND_NOW) so the descriptor is final before any reader looks;
#  - exports nothing but the JVMTI entry points, the TLS variable and the shim's bootstrap: no
#    libstdc++ leaking into the JVM, and no other Java_* native HotSpot would bind by name to any
#    class that declares it (the agent registers its natives itself, agent/shimNatives.h; the
#    bootstrap is harmless under any declaration, agent/shimBootstrap.cpp); needs nothing beyond
#    glibc.
set -euo pipefail
lib=$1
fail=0
err() { echo "FAIL: $*"; fail=1; }

sym=$(readelf -W --dyn-syms "$lib" | awk '$8 == "otel_thread_ctx_v1"')
read -r _ _ size type bind vis ndx _ <<<"$sym"
[[ "$size $type $bind $vis" == "8 TLS GLOBAL DEFAULT" && "$ndx" != UND ]] ||
  err "otel_thread_ctx_v1 is '$sym', want 8 TLS GLOBAL DEFAULT defined"

case $(uname -m) in
  x86_64) reloc=R_X86_64_TLSDESC ;;
  aarch64) reloc=R_AARCH64_TLSDESC ;;
esac
readelf -W -r "$lib" | grep -E "$reloc +[0-9a-f]+ +otel_thread_ctx_v1" >/dev/null ||
  err "no $reloc relocation naming otel_thread_ctx_v1"
others=$(readelf -W -r "$lib" |
  awk -v r="$reloc" '$5 == "otel_thread_ctx_v1" && $3 != r {print $3}' | sort -u | tr '\n' ' ')
[[ -z "$others" ]] || err "relocations other than $reloc name otel_thread_ctx_v1: $others"

readelf -W -d "$lib" | grep -Eq 'FLAGS.*BIND_NOW|FLAGS_1.*NOW' || err "not linked with -z now"

exports=$(readelf -W --dyn-syms "$lib" | awk 'NR > 3 && $7 != "UND" && $8 != "" {print $8}' | sort)
bootstrap=Java_io_vtctx_internal_AgentBootstrap_bindAgentNatives
unexpected=$(grep -Ev "^(Agent_OnLoad|Agent_OnAttach|Agent_OnUnload|otel_thread_ctx_v1|$bootstrap)\$" <<<"$exports" || true)
[[ -z "$unexpected" ]] || err "unexpected exports: $(tr '\n' ' ' <<<"$unexpected")"
for s in Agent_OnLoad Agent_OnAttach Agent_OnUnload $bootstrap; do
  grep -qx "$s" <<<"$exports" || err "missing export $s"
done

needed=$(readelf -W -d "$lib" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort | tr '\n' ' ')
for n in $needed; do
  case $n in
    libc.so.6 | ld-linux-x86-64.so.2 | ld-linux-aarch64.so.1) ;;
    *) err "depends on $n (only glibc allowed; link the C++ runtime statically)" ;;
  esac
done

echo "exports: $(tr '\n' ' ' <<<"$exports")"
echo "needs:   $needed"
((fail == 0)) && echo PASS
exit $fail
