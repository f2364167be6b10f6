// SPDX-License-Identifier: Apache-2.0
/* CPU sampling: a perf event (cpu-clock at a chosen frequency, one per CPU) fires; if the
 * interrupted task belongs to the target, its context and (optionally) its stacks go out through
 * the ring buffer. */
#include "vmlinux.h"

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "profile.h"
#include "tlsSlot.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

const volatile __u32 target_tgid = 0;
const volatile struct vtctx_slot_recipe vtctx_recipe = {};
const volatile bool collect_stacks = false;

struct {
  __uint(type, BPF_MAP_TYPE_RINGBUF);
  __uint(max_entries, 4 << 20);
} events SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, VTCTX_PC_COUNTERS);
  __type(key, __u32);
  __type(value, __u64);
} counters SEC(".maps");

static __always_inline void count(__u32 which) {
  __u64 *c = bpf_map_lookup_elem(&counters, &which);
  if (c) *c += 1;
}

SEC("perf_event")
int vtctx_sample(struct bpf_perf_event_data *pe) {
  struct vtctx_sample_event *e;
  __u64 id = bpf_get_current_pid_tgid();

  if ((__u32)(id >> 32) != target_tgid) return 0;
  count(VTCTX_PC_SAMPLES);
  e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
  if (!e) {
    count(VTCTX_PC_DROPPED);
    return 0;
  }
  e->ts_ns = bpf_ktime_get_ns();
  e->tid = (__u32)id;
  e->tgid = target_tgid;
  e->cpu = bpf_get_smp_processor_id();
  e->reserved = 0;
  vtctx_read_context(&vtctx_recipe, &e->ctx);
  e->ctx.attrs_len = vtctx_copy_attrs(e->attrs, &e->ctx, vtctx_attrs_wanted(&e->ctx));
  e->user_stack_bytes = 0;
  e->kernel_stack_bytes = 0;
  if (collect_stacks) {
    /* User stack through frame pointers (the kernel's perf unwinder); kernel stack via ORC. */
    e->user_stack_bytes =
        bpf_get_stack(pe, e->user_stack, sizeof(e->user_stack), BPF_F_USER_STACK);
    e->kernel_stack_bytes = bpf_get_stack(pe, e->kernel_stack, sizeof(e->kernel_stack), 0);
  }
  bpf_ringbuf_submit(e, 0);
  count(VTCTX_PC_SUBMITTED);
  return 0;
}
