/*
 * OTEP 4719 process context: the facts shared by the writer
 * (tls-publish/processContextPublisher.cpp), our reader (reader-bpf) and the tests. Plain C so any
 * runtime or BPF program can include it. See docs/process-context.md and docs/protocol.md.
 *
 * A process publishes one page-sized mapping whose first 32 bytes are the header below. The
 * header points at a protobuf `ProcessContext` payload elsewhere in the process:
 *
 *   offset size field
 *   0      8    signature        "OTEL_CTX" (no NUL)
 *   8      4    version          2
 *   12     4    payload_size     bytes of the payload (readers accept 1..65536)
 *   16     8    published_at_ns  CLOCK_BOOTTIME ns; 0 = update in progress; strictly increases
 *                                with every update
 *   24     8    payload          address of the payload in the publishing process
 *
 * All multi-byte fields are in host byte order.
 */
#ifndef VTCTX_PROCESS_CONTEXT_HEADER_H_
#define VTCTX_PROCESS_CONTEXT_HEADER_H_

#ifdef __bpf__
/* BPF programs get the fixed-width types from vmlinux.h. */
#else
#include <stdint.h>
#endif

#define VTCTX_PCTX_SIGNATURE "OTEL_CTX"
#define VTCTX_PCTX_SIGNATURE_SIZE 8
#define VTCTX_PCTX_VERSION 2
#define VTCTX_PCTX_HEADER_SIZE 32
/* Readers refuse larger payloads (the OpenTelemetry eBPF profiler's limit). */
#define VTCTX_PCTX_MAX_PAYLOAD_SIZE 65536

/* Names the mapping may carry in /proc/<pid>/maps (readers accept all four; never executable). */
#define VTCTX_PCTX_MAPPING_MEMFD "/memfd:OTEL_CTX"
#define VTCTX_PCTX_MAPPING_MEMFD_DELETED "/memfd:OTEL_CTX (deleted)"
#define VTCTX_PCTX_MAPPING_MEMFD_NAMED "[anon_shmem:OTEL_CTX]"
#define VTCTX_PCTX_MAPPING_ANON_NAMED "[anon:OTEL_CTX]"

/* Extra attributes (ProcessContext field 2) that describe OTEP 4947 thread context. */
#define VTCTX_PCTX_KEY_SCHEMA_VERSION "threadlocal.schema_version"
#define VTCTX_PCTX_KEY_ATTRIBUTE_KEY_MAP "threadlocal.attribute_key_map"
/* The only schema version today's readers accept (the OTEP will rename it tls_v1). */
#define VTCTX_PCTX_THREADLOCAL_SCHEMA_VERSION "tlsdesc_v1_dev"
/* vtctx's own extra attribute: the vtctx version whose agent published the context. */
#define VTCTX_PCTX_KEY_VTCTX_VERSION "vtctx.version"
/* How the agent was loaded: "startup" (-agentpath) or "attached" (a late attach). */
#define VTCTX_PCTX_KEY_VTCTX_LOAD "vtctx.load"
/* The agent's options as given at that load (without report=). */
#define VTCTX_PCTX_KEY_VTCTX_OPTIONS "vtctx.options"
/* How readers find the context of the code an OS thread runs: "carrier" (otel_thread_ctx_v1
 * points at the mounted thread's record) or "identity" (otel_thread_ctx_v1 is NULL or the carrier's
 * own while a virtual thread runs; follow the thread index). */
#define VTCTX_PCTX_KEY_VTCTX_CHANNEL "vtctx.channel"
/* The thread index (vtctx/threadIndex.h): its header's address as 0x-prefixed lowercase hex, and
 * its layout version (decimal). Present with both channels. */
#define VTCTX_PCTX_KEY_VTCTX_IDENTITY_INDEX "vtctx.identity.index"
#define VTCTX_PCTX_KEY_VTCTX_IDENTITY_LAYOUT "vtctx.identity.layout"
/* The agent's status block (vtctx/agentStatus.h): its address as 0x-prefixed lowercase hex, and
 * its layout version (decimal). */
#define VTCTX_PCTX_KEY_VTCTX_STATUS "vtctx.status"
#define VTCTX_PCTX_KEY_VTCTX_STATUS_LAYOUT "vtctx.status.layout"

/* Record attribute key indexes are u8; we hand out 0..254 (255 keys at most). */
#define VTCTX_PCTX_MAX_ATTRIBUTE_KEYS 255

struct vtctx_pctx_header {
  char signature[VTCTX_PCTX_SIGNATURE_SIZE];
  uint32_t version;
  uint32_t payload_size;
  uint64_t published_at_ns;
  uint64_t payload;
};

#define VTCTX_PCTX_OFFSET_SIGNATURE 0
#define VTCTX_PCTX_OFFSET_VERSION 8
#define VTCTX_PCTX_OFFSET_PAYLOAD_SIZE 12
#define VTCTX_PCTX_OFFSET_PUBLISHED_AT_NS 16
#define VTCTX_PCTX_OFFSET_PAYLOAD 24

#endif /* VTCTX_PROCESS_CONTEXT_HEADER_H_ */
