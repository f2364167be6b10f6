// The exported OTEP 4947 TLS variable `otel_thread_ctx_v1`.
//
// Defined exactly once (otelThreadContext.cpp), with C linkage so the symbol name is the spec's,
// default visibility so it lands in .dynsym, and compiled -ftls-model=global-dynamic
// -mtls-dialect=gnu2 (TLSDESC) so external readers can classify and locate it.
#ifndef VTCTX_TLS_PUBLISH_OTEL_THREAD_CONTEXT_H_
#define VTCTX_TLS_PUBLISH_OTEL_THREAD_CONTEXT_H_

#include "threadContextRecord.h"

extern "C" {
// Points at the record of the code running on this OS thread, or is NULL.
// constinit: no dynamic initialiser, so accesses need no C++ TLS wrapper call.
extern __attribute__((visibility("default"))) constinit thread_local void* otel_thread_ctx_v1;
}

namespace vtctx {

// Points this OS thread's `otel_thread_ctx_v1` at `record` (may be nullptr). One TLS store:
// readers interrupt this thread, so they see either the old or the new pointer, both of which
// are records that stay mapped for the life of the process.
inline void PublishOnThisThread(ThreadContextRecord* record) { otel_thread_ctx_v1 = record; }

inline ThreadContextRecord* PublishedOnThisThread() {
  return static_cast<ThreadContextRecord*>(otel_thread_ctx_v1);
}

// Resolves the TLS descriptor early (with -z now it is already bound at load; this also makes the
// calling thread's slot exist) so readers that read the descriptor once see its final value.
void TouchThreadContextSlot();

}  // namespace vtctx

#endif  // VTCTX_TLS_PUBLISH_OTEL_THREAD_CONTEXT_H_
