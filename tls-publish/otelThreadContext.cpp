#include "otelThreadContext.h"

// The only definition. Zero-initialised: every thread starts with no published record.
// clang 14 also emits an unused hidden TLS wrapper (_ZTW...) here, whose access is general-dynamic;
// the agent's --gc-sections drops it, and abi.exports fails if any relocation but TLSDESC names
// the variable.
extern "C" {
__attribute__((visibility("default"))) constinit thread_local void* otel_thread_ctx_v1 = nullptr;
}

namespace vtctx {

void TouchThreadContextSlot() {
  // A volatile read keeps the access (and so the descriptor call) from being optimised away.
  void* volatile* slot = &VTCTX_THIS_THREAD_SLOT;
  (void)*slot;
}

}  // namespace vtctx
