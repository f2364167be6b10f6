// SPDX-License-Identifier: Apache-2.0
/* CPU sampling: a perf event (cpu-clock at a chosen frequency, one per CPU) fires; if the
 * interrupted task belongs to the target, its context is read and the sample is either counted
 * in a per-CPU hash map (with stack ids for flame graphs) or sent as a ring-buffer event. */
// vmlinux.h must come first: it defines the kernel types everything below uses.
// clang-format off
#include "vmlinux.h"

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "commands/profile.h"
#include "commands/ringbufNotify.bpf.h"
#include "commands/targetFilter.bpf.h"
#include "commands/identityRead.bpf.h"
// clang-format on

#define VTCTX_EFAULT 14 /* bpf_get_stackid: no user stack (kernel thread) */

char LICENSE[] SEC("license") = "Dual BSD/GPL";

const volatile __u32 mode = VTCTX_PROFILE_COUNTS;
/* VTCTX_PROFILE_EVENTS: also collect user and kernel stack ids (folded output aggregated in user
 * space). */
const volatile bool event_stacks = false;
/* Benchmark aid (--bpf-floor): stop right after the filter, to measure the fixed cost of a run. */
const volatile bool floor_only = false;

/* Sizes are set by user space before load; unused maps are shrunk to their minimum. */
struct {
  __uint(type, BPF_MAP_TYPE_RINGBUF);
  __uint(max_entries, 4 << 20);
} events SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_HASH);
  __uint(max_entries, 16384);
  __type(key, struct vtctx_profile_key);
  __type(value, __u64);
} counts SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_STACK_TRACE);
  __uint(max_entries, 16384);
  __uint(key_size, sizeof(__u32));
  __uint(value_size, VTCTX_MAX_STACK_DEPTH * sizeof(__u64));
} stacks SEC(".maps");

#define VTCTX_COUNTERS VTCTX_PC_COUNTERS
#include "commands/perCpuCounters.bpf.h"

static __always_inline void stack_ids(struct bpf_perf_event_data* pe, __s32* user, __s32* kernel) {
  /* User stack through frame pointers (the kernel's perf unwinder); kernel stack via ORC. */
  *user = bpf_get_stackid(pe, &stacks, BPF_F_USER_STACK);
  *kernel = bpf_get_stackid(pe, &stacks, 0);
  if (*user < 0 && *user != -VTCTX_EFAULT) count(VTCTX_PC_STACK_LOST);
}

static __always_inline int send_event(struct bpf_perf_event_data* pe, __u64 id,
                                      const struct vtctx_context* ctx,
                                      const struct vtctx_identity_hit* hit) {
  struct vtctx_sample_event* e;
  __u32 attrs = vtctx_attrs_wanted(ctx);

  /* Constant reservation sizes, each filled in its own branch (the verifier checks the attrs
   * copy against the size reserved on that path). */
  if (attrs) {
    e = bpf_ringbuf_reserve(&events, sizeof(*e) + VTCTX_ATTRS_MAX_SIZE, 0);
    if (!e) return -1;
    __builtin_memcpy(&e->ctx, ctx, sizeof(*ctx));
    e->ctx.attrs_len = vtctx_copy_attrs((void*)(e + 1), ctx, attrs);
  } else {
    e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
    if (!e) return -1;
    __builtin_memcpy(&e->ctx, ctx, sizeof(*ctx));
  }
  vtctx_confirm_current_context(&e->ctx, hit);
  e->ts_ns = bpf_ktime_get_ns();
  e->tid = (__u32)id;
  e->tgid = target_tgid;
  e->cpu = bpf_get_smp_processor_id();
  e->user_stack_id = -1;
  e->kernel_stack_id = -1;
  if (event_stacks) stack_ids(pe, &e->user_stack_id, &e->kernel_stack_id);
  e->reserved = 0;
  bpf_ringbuf_submit(e,
                     vtctx_submit_flags(&events, sizeof(*e) + (attrs ? VTCTX_ATTRS_MAX_SIZE : 0)));
  return 0;
}

static __always_inline int add_count(struct bpf_perf_event_data* pe,
                                     const struct vtctx_context* ctx) {
  struct vtctx_profile_key key = {};
  __u64 one = 1, *value;

  key.status = ctx->status;
  if (ctx->status == VTCTX_CTX_OK) {
    key.valid = ctx->header.valid;
    if (ctx->header.valid == VTCTX_RECORD_VALID) {
      __builtin_memcpy(key.trace_id, ctx->header.trace_id, sizeof(key.trace_id));
      __builtin_memcpy(key.span_id, ctx->header.span_id, sizeof(key.span_id));
      key.trace_flags = ctx->header.trace_flags;
    }
  }
  key.user_stack_id = -1;
  key.kernel_stack_id = -1;
  if (mode == VTCTX_PROFILE_STACKS) stack_ids(pe, &key.user_stack_id, &key.kernel_stack_id);
  value = bpf_map_lookup_elem(&counts, &key);
  if (value) {
    *value += 1; /* this CPU's copy: no other writer while the program runs here */
    return 0;
  }
  if (bpf_map_update_elem(&counts, &key, &one, BPF_NOEXIST) == 0) return 0;
  /* Another CPU inserted the key meanwhile (EEXIST), or the map is full. */
  value = bpf_map_lookup_elem(&counts, &key);
  if (!value) return -1;
  *value += 1;
  return 0;
}

SEC("perf_event")
int vtctx_sample(struct bpf_perf_event_data* pe) {
  struct vtctx_context ctx = {};
  struct vtctx_identity_hit hit = {};
  __u64 id = bpf_get_current_pid_tgid();
  int err;

  if (!vtctx_is_target(id)) return 0;
  /* No per-sample counter: every sample of the target is counted in `counts`, sent as an event,
   * or counted as dropped, so user space derives the total (a counter here would cost one more
   * cold map access per sample). */
  if (floor_only) return 0;
  vtctx_read_current_context(&ctx, &hit);
  if (mode == VTCTX_PROFILE_EVENTS) {
    err = send_event(pe, id, &ctx, &hit);
  } else {
    vtctx_confirm_current_context(&ctx, &hit); /* the header is all a count reads */
    err = add_count(pe, &ctx);
  }
  if (err) count(VTCTX_PC_DROPPED);
  return 0;
}
