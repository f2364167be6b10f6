/*
 * The agent's status block: a few counters in the writer's memory that tell a reader why samples
 * carry no context (the agent serves no shim, refused one, or no thread published yet) without
 * asking the JVM anything. The process context names it (attribute vtctx.status: the block's
 * address as 0x-prefixed lowercase hex; vtctx.status.layout: VTCTX_STATUS_LAYOUT). Plain C, for
 * the agent and the reader (docs/protocol.md, "Agent status").
 *
 *   offset size field
 *   0      8    magic               VTCTX_STATUS_MAGIC
 *   8      4    layout              VTCTX_STATUS_LAYOUT
 *   12     4    served_origins      bits VTCTX_SHIM_ORIGIN_*: where the served shims come from
 *   16     8    shims_served        class loaders whose shim got the agent's natives
 *   24     8    shims_refused       shims that asked for the natives and were refused
 *   32     8    publishing_threads  threads whose shim took their record (a thread's first
 *                                   publish), since the agent loaded
 *
 * The agent stores each field with one aligned relaxed store or atomic add; a reader reads the
 * block once and treats it as advice (a hostile process can write anything there).
 */
#ifndef VTCTX_AGENT_STATUS_H_
#define VTCTX_AGENT_STATUS_H_

#include <stdint.h>

/* "VTCTXSTA" as a little-endian u64. */
#define VTCTX_STATUS_MAGIC 0x4154535854435456ull
#define VTCTX_STATUS_LAYOUT 1
#define VTCTX_STATUS_SIZE 40

/* Where a served shim comes from (served_origins). */
#define VTCTX_SHIM_ORIGIN_SYSTEM 1u         /* the system class loader: class path, module path */
#define VTCTX_SHIM_ORIGIN_OTEL_EXTENSION 2u /* the OpenTelemetry Java agent's extensions */
#define VTCTX_SHIM_ORIGIN_OTHER 4u          /* any other class loader (shim_loaders=any) */

struct vtctx_agent_status {
  uint64_t magic;
  uint32_t layout;
  uint32_t served_origins;
  uint64_t shims_served;
  uint64_t shims_refused;
  uint64_t publishing_threads;
};

#define VTCTX_STATUS_OFFSET_MAGIC 0
#define VTCTX_STATUS_OFFSET_LAYOUT 8
#define VTCTX_STATUS_OFFSET_SERVED_ORIGINS 12
#define VTCTX_STATUS_OFFSET_SHIMS_SERVED 16
#define VTCTX_STATUS_OFFSET_SHIMS_REFUSED 24
#define VTCTX_STATUS_OFFSET_PUBLISHING_THREADS 32

#endif /* VTCTX_AGENT_STATUS_H_ */
