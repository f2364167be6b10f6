#include "otelThreadContext.h"

// The only definition. Zero-initialised: every thread starts with no published record.
extern "C" {
__attribute__((visibility("default"))) constinit thread_local void* otel_thread_ctx_v1 = nullptr;
}

namespace vtctx {

void TouchThreadContextSlot() {
  // A volatile read keeps the access (and so the descriptor call) from being optimised away.
  void* volatile* slot = &otel_thread_ctx_v1;
  (void)*slot;
}

}  // namespace vtctx
