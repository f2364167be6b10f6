/*
 * OTEP 4947 Thread-Local Context Record: the byte layout shared by the writer (agent, shim
 * natives), the readers (vtctx-reader user space and BPF programs) and the tests.
 *
 * Plain C so that BPF programs and C fixtures include it unchanged. The layout is the
 * interoperability contract: never reorder, never pad. See docs/protocol.md (the attrs-data rules:
 * attrsData.h; golden bytes: protocol/vectors/records.vec).
 *
 *   offset size field
 *   0      16   trace_id         W3C bytes, network order (as in the traceparent hex)
 *   16     8    span_id          W3C bytes
 *   24     1    valid            1 = complete and usable, 0 = being rewritten / no context,
 *                                anything else = invalid
 *   25     1    trace_flags      W3C flags (bit 0 = sampled)
 *   26     2    attrs_data_size  host byte order, bytes of attrs_data in use
 *   28     n    attrs_data       entries {key_index u8, length u8, value[length]} packed
 */
#ifndef VTCTX_RECORD_H_
#define VTCTX_RECORD_H_

#ifdef __bpf__
/* BPF programs get the fixed-width types from vmlinux.h. */
#else
#include <stdint.h>
#endif

/* Name of the exported TLS variable (OTEP 4947). */
#define VTCTX_TLS_SYMBOL "otel_thread_ctx_v1"

#define VTCTX_TRACE_ID_SIZE 16
#define VTCTX_SPAN_ID_SIZE 8
#define VTCTX_RECORD_HEADER_SIZE 28
/* The frugal default: one cache line. */
#define VTCTX_RECORD_DEFAULT_SIZE 64
/* The OTEP's recommended upper bound (the OpenTelemetry eBPF profiler's read limit). */
#define VTCTX_RECORD_MAX_SIZE 640
#define VTCTX_ATTRS_MAX_SIZE (VTCTX_RECORD_MAX_SIZE - VTCTX_RECORD_HEADER_SIZE)

#define VTCTX_RECORD_VALID 1
#define VTCTX_RECORD_INVALID 0

/* The fixed header every reader reads first. attrs_data follows it directly. */
struct vtctx_record_header {
  uint8_t trace_id[VTCTX_TRACE_ID_SIZE];
  uint8_t span_id[VTCTX_SPAN_ID_SIZE];
  uint8_t valid;
  uint8_t trace_flags;
  uint16_t attrs_data_size;
} __attribute__((packed));

#define VTCTX_OFFSET_TRACE_ID 0
#define VTCTX_OFFSET_SPAN_ID 16
#define VTCTX_OFFSET_VALID 24
#define VTCTX_OFFSET_TRACE_FLAGS 25
#define VTCTX_OFFSET_ATTRS_DATA_SIZE 26
#define VTCTX_OFFSET_ATTRS_DATA 28

#endif /* VTCTX_RECORD_H_ */
