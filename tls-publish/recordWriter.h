// The one in-place writer for OTEP 4947 records (strategy 2: rewrite a fixed record).
//
// Sequence: valid=0, compiler fence, payload, compiler fence, valid=1.
//
// Why compiler fences suffice: the readers that matter (eBPF at a perf sample or a syscall,
// a signal handler) interrupt the writing thread itself, so they observe its program order;
// only compiler reordering could break the protocol. A reader on another CPU reading a
// running thread (e.g. `vtctx-reader resolve`) must stop the thread or read twice.
//
// Records are written only by the thread that owns them (the virtual or platform thread whose
// context they hold). All functions are async-signal-safe, take no locks and never allocate.
#ifndef VTCTX_TLS_PUBLISH_RECORD_WRITER_H_
#define VTCTX_TLS_PUBLISH_RECORD_WRITER_H_

#include <atomic>
#include <cstdint>
#include <cstring>

#include "threadContextRecord.h"

namespace vtctx {

// Rewrites `record` in place. `write_payload(ThreadContextRecord&)` fills the payload and returns
// true if the result is a usable context (valid=1) or false to leave the record invalid (no
// context). The valid byte is stored through atomic_ref so the store is never split or elided.
template <typename PayloadWriter>
inline void RewriteInPlace(ThreadContextRecord* record, PayloadWriter&& write_payload) {
  std::atomic_ref<uint8_t> valid(record->valid);
  valid.store(VTCTX_RECORD_INVALID, std::memory_order_relaxed);
  std::atomic_signal_fence(std::memory_order_seq_cst);  // valid=0 lands before any payload byte
  const bool usable = write_payload(*record);
  std::atomic_signal_fence(std::memory_order_seq_cst);  // payload complete before valid=1
  if (usable) valid.store(VTCTX_RECORD_VALID, std::memory_order_relaxed);
}

inline bool AllZeroBytes(const uint8_t* bytes, size_t size) {
  uint8_t any = 0;
  for (size_t i = 0; i < size; ++i) any |= bytes[i];
  return any == 0;
}

void ClearTraceContext(ThreadContextRecord* record);

// Publishes a W3C trace context. attrs_data is left as it is (attributes belong to the thread,
// not to the span; callers clear them explicitly). OTEP 4947: both ids must be set; an all-zero
// trace-id or span-id (W3C: invalid) clears the record instead, so a reader never sees half a
// context, and trace-flags are 0 whenever the ids are unset.
inline void WriteTraceContext(ThreadContextRecord* record, const uint8_t (&trace_id)[16],
                              const uint8_t (&span_id)[8], uint8_t trace_flags) {
  if (AllZeroBytes(trace_id, sizeof trace_id) || AllZeroBytes(span_id, sizeof span_id)) {
    ClearTraceContext(record);
    return;
  }
  RewriteInPlace(record, [&](ThreadContextRecord& r) {
    std::memcpy(r.trace_id, trace_id, sizeof r.trace_id);
    std::memcpy(r.span_id, span_id, sizeof r.span_id);
    r.trace_flags = trace_flags;
    return true;
  });
}

// Detaches: the record keeps its address but carries no context (valid=0, ids zero, flags 0).
inline void ClearTraceContext(ThreadContextRecord* record) {
  RewriteInPlace(record, [](ThreadContextRecord& r) {
    std::memset(r.trace_id, 0, sizeof r.trace_id);
    std::memset(r.span_id, 0, sizeof r.span_id);
    r.trace_flags = 0;
    r.attrs_data_size = 0;
    return false;
  });
}

}  // namespace vtctx

#endif  // VTCTX_TLS_PUBLISH_RECORD_WRITER_H_
