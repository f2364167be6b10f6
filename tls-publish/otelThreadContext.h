// The exported OTEP 4947 TLS variable `otel_thread_ctx_v1`.
//
// Defined exactly once (otelThreadContext.cpp), with C linkage so the symbol name is the spec's,
// default visibility so it lands in .dynsym, and accessed only through TLSDESC (the relocation
// external readers classify and locate it by): VTCTX_THIS_THREAD_SLOT below is the one access.
#ifndef VTCTX_TLS_PUBLISH_OTEL_THREAD_CONTEXT_H_
#define VTCTX_TLS_PUBLISH_OTEL_THREAD_CONTEXT_H_

#include "threadContextRecord.h"
#ifdef VTCTX_TLSDESC_ASM
#include "vtctx/tlsdescAddress.h"
#endif

extern "C" {
// Points at the record of the code running on this OS thread, or is NULL.
// constinit: no dynamic initialiser, so accesses need no C++ TLS wrapper call.
extern __attribute__((visibility("default"))) constinit thread_local void* otel_thread_ctx_v1;
}

namespace vtctx {

#ifdef VTCTX_TLSDESC_ASM
namespace otel_thread_context_internal {
VTCTX_DEFINE_TLSDESC_ADDRESS(TlsdescAddress, otel_thread_ctx_v1)
}  // namespace otel_thread_context_internal
#endif

// This OS thread's `otel_thread_ctx_v1`, an lvalue: every access in this code goes through here,
// so the variable's only TLS relocation is R_X86_64_TLSDESC. With -mtls-dialect=gnu2 (cmake's
// VTCTX_TLSDESC_*_FLAGS) it is the variable itself and the compiler emits the TLSDESC call; a
// compiler without it (clang < 19) gets the same sequence from vtctx/tlsdescAddress.h. Hot path
// (every mount and unmount): lea + call + add, and the resolver is one load for static TLS.
// A macro, not a function returning a pointer or reference: GCC 12's UBSan null check on such a
// TLS address reads stale flags once the linker relaxes the access to local-exec.
#ifdef VTCTX_TLSDESC_ASM
#define VTCTX_THIS_THREAD_SLOT \
  (*static_cast<void**>(::vtctx::otel_thread_context_internal::TlsdescAddress()))
#else
#define VTCTX_THIS_THREAD_SLOT (::otel_thread_ctx_v1)
#endif

// Points this OS thread's `otel_thread_ctx_v1` at `record` (may be nullptr). One TLS store:
// readers interrupt this thread, so they see either the old or the new pointer, both of which
// are records that stay mapped for the life of the process.
inline void PublishOnThisThread(ThreadContextRecord* record) { VTCTX_THIS_THREAD_SLOT = record; }

inline ThreadContextRecord* PublishedOnThisThread() {
  return static_cast<ThreadContextRecord*>(VTCTX_THIS_THREAD_SLOT);
}

// Resolves the TLS descriptor early (with -z now it is already bound at load; this also makes the
// calling thread's slot exist) so readers that read the descriptor once see its final value.
void TouchThreadContextSlot();

}  // namespace vtctx

#endif  // VTCTX_TLS_PUBLISH_OTEL_THREAD_CONTEXT_H_
