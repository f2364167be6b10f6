// SPDX-License-Identifier: Apache-2.0
/* `verify`: at every CPU sample of the target, the context of the interrupted thread on both
 * channels (its otel_thread_ctx_v1, and HotSpot's record of the mounted thread followed into the
 * thread index), compared here. The interrupted thread cannot write its record meanwhile, so the
 * two reads see one state of it. */
// vmlinux.h must come first: it defines the kernel types everything below uses.
// clang-format off
#include "vmlinux.h"

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "commands/verify.h"
#include "commands/ringbufNotify.bpf.h"
#include "commands/targetFilter.bpf.h"
#include "commands/identityRead.bpf.h"
// clang-format on

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Benchmark aid (--bpf-floor): stop right after the filter. */
const volatile bool floor_only = false;

struct {
  __uint(type, BPF_MAP_TYPE_RINGBUF);
  __uint(max_entries, 1 << 20);
} events SEC(".maps");

#define VTCTX_COUNTERS VTCTX_VC_COUNTERS
#include "commands/perCpuCounters.bpf.h"

/* A context with both ids (OTEP 4947; recordFormat.cpp: IsValidContext). */
static __always_inline bool has_context(const struct vtctx_context* c) {
  __u64 trace[2], span;
  if (c->status != VTCTX_CTX_OK || c->header.valid != VTCTX_RECORD_VALID) return false;
  __builtin_memcpy(trace, c->header.trace_id, sizeof(trace));
  __builtin_memcpy(&span, c->header.span_id, sizeof(span));
  return (trace[0] | trace[1]) != 0 && span != 0;
}

static __always_inline bool same_context(const struct vtctx_context* a,
                                         const struct vtctx_context* b) {
  __u64 ta[3], tb[3];
  __builtin_memcpy(ta, a->header.trace_id, 16);
  __builtin_memcpy(&ta[2], a->header.span_id, 8);
  __builtin_memcpy(tb, b->header.trace_id, 16);
  __builtin_memcpy(&tb[2], b->header.span_id, 8);
  return ta[0] == tb[0] && ta[1] == tb[1] && ta[2] == tb[2] &&
         a->header.trace_flags == b->header.trace_flags;
}

SEC("perf_event")
int vtctx_verify_sample(struct bpf_perf_event_data* pe) {
  struct vtctx_context carrier = {}, identity = {};
  struct vtctx_identity_hit hit = {};
  struct vtctx_verify_event* e;
  __u64 id = bpf_get_current_pid_tgid();
  bool c, i;

  if (!vtctx_is_target(id)) return 0;
  if (floor_only) return 0;
  count(VTCTX_VC_SAMPLES);
  vtctx_read_context(&vtctx_recipe, &carrier);
  vtctx_read_identity_context(&vtctx_identity, &identity, &hit);
  if (!vtctx_identity_confirmed(&vtctx_identity, &identity, &hit)) {
    count(VTCTX_VC_CHANGED);
    return 0;
  }
  c = has_context(&carrier);
  i = has_context(&identity);
  if (c && i && same_context(&carrier, &identity)) {
    count(VTCTX_VC_BOTH_SAME);
  } else if (!c && !i) {
    count(VTCTX_VC_BOTH_NONE);
  } else if (!i) {
    count(VTCTX_VC_CARRIER_ONLY);
  } else if (!c) {
    count(VTCTX_VC_IDENTITY_ONLY);
  } else {
    count(VTCTX_VC_DISAGREE);
    e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
    if (!e) {
      count(VTCTX_VC_DROPPED);
      return 0;
    }
    e->ts_ns = bpf_ktime_get_ns();
    e->tid = (__u32)id;
    e->reserved = 0;
    e->java_thread_id = hit.thread_id;
    __builtin_memcpy(&e->carrier, &carrier, sizeof(carrier));
    __builtin_memcpy(&e->identity, &identity, sizeof(identity));
    bpf_ringbuf_submit(e, vtctx_submit_flags(&events, sizeof(*e)));
  }
  return 0;
}
