// SPDX-License-Identifier: Apache-2.0
/* CPU sampling: a perf event (cpu-clock at a chosen frequency, one per CPU) fires; if the
 * interrupted task belongs to the target, its context is read and the sample is either counted
 * in a per-CPU hash map or sent as a ring-buffer event (with its own stacks for flame graphs). */
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

char LICENSE[] SEC("license") = "Dual BSD/GPL";

const volatile __u32 mode = VTCTX_PROFILE_COUNTS;
/* VTCTX_PROFILE_EVENTS: also copy the user and kernel stacks into each event (folded, svg,
 * pprof). */
const volatile bool event_stacks = false;
/* The JVM runs without frame pointers in JIT code: copy the user stack instead of walking it
 * (profile.h). */
const volatile bool copy_user_stack = false;
/* --keep-agent-threads: sample the agent's own threads like any other. */
const volatile bool keep_agent_threads = false;
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

#define VTCTX_COUNTERS VTCTX_PC_COUNTERS
#include "commands/perCpuCounters.bpf.h"

/* The vtctx agent names its own native threads "vtctx-..." (agent/maintenance.cpp,
 * agent/readerResync.cpp): their CPU is the agent's, not the application's, and must not show in
 * the user's profile. The comm is the interrupted task's own (current->comm, a 16-byte copy from
 * the task already in cache), so the check costs a helper call and no map access. An application
 * thread given a vtctx- name is left out too; every such sample is counted, never hidden. */
static __always_inline bool vtctx_is_agent_thread(void) {
  char comm[16];

  if (bpf_get_current_comm(comm, sizeof(comm)) != 0) return false;
  return comm[0] == 'v' && comm[1] == 't' && comm[2] == 'c' && comm[3] == 't' && comm[4] == 'x' &&
         comm[5] == '-';
}

/* The sample's user stack (the kernel's frame-pointer walk) and kernel stack (ORC) written
 * straight into its reserved event: each sample has its own copy, so none can be lost to a
 * collision in a shared stack map, and no hashing is done. A walk that fails leaves -errno, which
 * user space counts and shows. */
static __always_inline void copy_stacks(struct bpf_perf_event_data* pe,
                                        struct vtctx_sample_event* e, __u64* stacks) {
  e->kernel_stack = bpf_get_stack(pe, stacks + VTCTX_MAX_STACK_DEPTH, VTCTX_STACK_BYTES, 0);
  e->copy_bytes = 0;
  if (!copy_user_stack) {
    e->user_stack = bpf_get_stack(pe, stacks, VTCTX_STACK_BYTES, BPF_F_USER_STACK);
    e->stacks_size = VTCTX_STACKS_SIZE;
    return;
  }
  /* The user registers saved at kernel entry: the interrupted ones when the sample hit user
   * mode, the ones of the system call or fault otherwise. */
  struct pt_regs* regs = (struct pt_regs*)bpf_task_pt_regs(bpf_get_current_task_btf());
  __u8* copy = (__u8*)(stacks + 2 * VTCTX_MAX_STACK_DEPTH);
  __u64 base;

  e->user_stack = 0;
  e->stacks_size = VTCTX_STACKS_COPY_SIZE;
  e->user_ip = BPF_CORE_READ(regs, ip);
  e->user_sp = BPF_CORE_READ(regs, sp);
  e->user_bp = BPF_CORE_READ(regs, bp);
  /* Whole pages from sp's page upwards (each read at a constant offset the verifier checks);
   * the first unmapped page above the stack's top ends the copy. */
  base = e->user_sp & ~4095ULL;
  e->copy_base = base;
#pragma unroll
  for (int i = 0; i < VTCTX_USER_COPY_PAGES; i++) {
    if (bpf_probe_read_user(copy + i * 4096, 4096, (const void*)(base + i * 4096)) != 0) break;
    e->copy_bytes += 4096;
  }
}

static __always_inline int send_event(struct bpf_perf_event_data* pe, __u64 id,
                                      const struct vtctx_context* ctx,
                                      const struct vtctx_identity_hit* hit) {
  struct vtctx_sample_event* e;
  __u32 attrs = vtctx_attrs_wanted(ctx);
  /* Rodata, known to the verifier: each path below reserves a constant size. */
  const __u32 stacks_size =
      event_stacks ? (copy_user_stack ? VTCTX_STACKS_COPY_SIZE : VTCTX_STACKS_SIZE) : 0;
  const __u32 size = sizeof(*e) + (attrs ? VTCTX_ATTRS_MAX_SIZE : 0) + stacks_size;

  /* Constant reservation sizes, each filled in its own branch (the verifier checks the attrs
   * copy and the stack writes against the size reserved on that path). */
  if (attrs) {
    e = bpf_ringbuf_reserve(&events, sizeof(*e) + VTCTX_ATTRS_MAX_SIZE + stacks_size, 0);
    if (!e) return -1;
    __builtin_memcpy(&e->ctx, ctx, sizeof(*ctx));
    e->ctx.attrs_len = vtctx_copy_attrs((void*)(e + 1), ctx, attrs);
    if (event_stacks) copy_stacks(pe, e, (__u64*)((__u8*)(e + 1) + VTCTX_ATTRS_MAX_SIZE));
  } else {
    e = bpf_ringbuf_reserve(&events, sizeof(*e) + stacks_size, 0);
    if (!e) return -1;
    __builtin_memcpy(&e->ctx, ctx, sizeof(*ctx));
    if (event_stacks) copy_stacks(pe, e, (__u64*)(e + 1));
  }
  if (!event_stacks) {
    e->user_stack = -1;
    e->kernel_stack = -1;
    e->stacks_size = 0;
    e->copy_bytes = 0;
  }
  vtctx_confirm_current_context(&e->ctx, hit);
  e->ts_ns = bpf_ktime_get_ns();
  e->tid = (__u32)id;
  e->tgid = target_tgid;
  e->cpu = bpf_get_smp_processor_id();
  bpf_ringbuf_submit(e, vtctx_submit_flags(&events, size));
  return 0;
}

static __always_inline int add_count(const struct vtctx_context* ctx) {
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
  if (!keep_agent_threads && vtctx_is_agent_thread()) {
    count(VTCTX_PC_AGENT_THREAD);
    return 0;
  }
  vtctx_read_current_context(&ctx, &hit);
  if (mode == VTCTX_PROFILE_EVENTS) {
    err = send_event(pe, id, &ctx, &hit);
  } else {
    vtctx_confirm_current_context(&ctx, &hit); /* the header is all a count reads */
    err = add_count(&ctx);
  }
  if (err) count(VTCTX_PC_DROPPED);
  return 0;
}
