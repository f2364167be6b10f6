// The C++ view of an OTEP 4947 record (layout in protocol/include/vtctx/record.h) and the proofs
// that both views agree byte for byte.
#ifndef VTCTX_TLS_PUBLISH_THREAD_CONTEXT_RECORD_H_
#define VTCTX_TLS_PUBLISH_THREAD_CONTEXT_RECORD_H_

#include <cstddef>
#include <cstdint>

#include "vtctx/record.h"

namespace vtctx {

inline constexpr size_t kRecordDefaultSize = VTCTX_RECORD_DEFAULT_SIZE;  // bytes
inline constexpr size_t kRecordMaxSize = VTCTX_RECORD_MAX_SIZE;          // bytes
inline constexpr size_t kRecordHeaderSize = VTCTX_RECORD_HEADER_SIZE;    // bytes

// One record. A pool configured for larger records (up to 640 B) hands out the same header
// with attrs_data extending to the configured size; the record stays 64-byte aligned.
struct alignas(64) ThreadContextRecord {
  uint8_t trace_id[VTCTX_TRACE_ID_SIZE];
  uint8_t span_id[VTCTX_SPAN_ID_SIZE];
  uint8_t valid;
  uint8_t trace_flags;
  uint16_t attrs_data_size;
  uint8_t attrs_data[kRecordDefaultSize - kRecordHeaderSize];
};

static_assert(offsetof(ThreadContextRecord, trace_id) == VTCTX_OFFSET_TRACE_ID);
static_assert(offsetof(ThreadContextRecord, span_id) == VTCTX_OFFSET_SPAN_ID);
static_assert(offsetof(ThreadContextRecord, valid) == VTCTX_OFFSET_VALID);
static_assert(offsetof(ThreadContextRecord, trace_flags) == VTCTX_OFFSET_TRACE_FLAGS);
static_assert(offsetof(ThreadContextRecord, attrs_data_size) == VTCTX_OFFSET_ATTRS_DATA_SIZE);
static_assert(offsetof(ThreadContextRecord, attrs_data) == VTCTX_OFFSET_ATTRS_DATA);
static_assert(sizeof(ThreadContextRecord) == kRecordDefaultSize);
static_assert(alignof(ThreadContextRecord) == 64);
static_assert(sizeof(vtctx_record_header) == kRecordHeaderSize);
static_assert(offsetof(vtctx_record_header, attrs_data_size) == VTCTX_OFFSET_ATTRS_DATA_SIZE);

// A valid record size for a pool: whole cache lines between the default and the OTEP bound.
constexpr bool IsValidRecordSize(size_t size) {
  return size >= kRecordDefaultSize && size <= kRecordMaxSize && size % 64 == 0;
}

}  // namespace vtctx

#endif  // VTCTX_TLS_PUBLISH_THREAD_CONTEXT_RECORD_H_
