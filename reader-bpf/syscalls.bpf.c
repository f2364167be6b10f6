// SPDX-License-Identifier: Apache-2.0
/* Syscall entry of the target process: one ring-buffer event per entry of a selected syscall,
 * with the context the calling thread's `otel_thread_ctx_v1` points at. Runs as a BTF tracepoint
 * (tp_btf) or a raw tracepoint (raw_tp); neither needs tracefs. */
#include "vmlinux.h"

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "syscalls.h"
#include "tlsSlot.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Set by user space before load. */
const volatile __u32 target_tgid = 0;
const volatile struct vtctx_slot_recipe vtctx_recipe = {};
const volatile __u64 syscall_mask[VTCTX_SYSCALL_MAX / 64] = {};

struct {
  __uint(type, BPF_MAP_TYPE_RINGBUF);
  __uint(max_entries, 16 << 20); /* resized by user space (--ringbuf-mb) */
} events SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, VTCTX_SC_COUNTERS);
  __type(key, __u32);
  __type(value, __u64);
} counters SEC(".maps");

static __always_inline void count(__u32 which) {
  __u64 *c = bpf_map_lookup_elem(&counters, &which);
  if (c) *c += 1; /* per-CPU slot: no other writer while this program runs on this CPU */
}

static __always_inline void read_args(struct pt_regs *regs, __u64 args[6]) {
#if defined(__TARGET_ARCH_x86)
  args[0] = BPF_CORE_READ(regs, di);
  args[1] = BPF_CORE_READ(regs, si);
  args[2] = BPF_CORE_READ(regs, dx);
  args[3] = BPF_CORE_READ(regs, r10); /* the syscall ABI's 4th argument, not rcx */
  args[4] = BPF_CORE_READ(regs, r8);
  args[5] = BPF_CORE_READ(regs, r9);
#elif defined(__TARGET_ARCH_arm64)
  /* sys_enter sees the user registers: x0 still holds the first argument at entry. */
  args[0] = BPF_CORE_READ(regs, regs[0]);
  args[1] = BPF_CORE_READ(regs, regs[1]);
  args[2] = BPF_CORE_READ(regs, regs[2]);
  args[3] = BPF_CORE_READ(regs, regs[3]);
  args[4] = BPF_CORE_READ(regs, regs[4]);
  args[5] = BPF_CORE_READ(regs, regs[5]);
#endif
}

static __always_inline int on_sys_enter(struct pt_regs *regs, long nr) {
  struct vtctx_syscall_event *e;
  struct vtctx_context ctx = {};
  __u32 attrs;

  if ((__u32)(bpf_get_current_pid_tgid() >> 32) != target_tgid) return 0;
  if (nr < 0 || nr >= VTCTX_SYSCALL_MAX) return 0;
  if (!((syscall_mask[nr >> 6] >> (nr & 63)) & 1)) return 0;
  count(VTCTX_SC_MATCHED);

  vtctx_read_context(&vtctx_recipe, &ctx);
  attrs = vtctx_attrs_wanted(&ctx);
  /* Two fixed reservation sizes keep the common (no attrs) event small. */
  if (attrs)
    e = bpf_ringbuf_reserve(&events, sizeof(*e) + VTCTX_ATTRS_MAX_SIZE, 0);
  else
    e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
  if (!e) {
    count(VTCTX_SC_DROPPED);
    return 0;
  }
  e->ts_ns = bpf_ktime_get_ns();
  e->tid = (__u32)bpf_get_current_pid_tgid();
  e->tgid = target_tgid;
  e->nr = nr;
  read_args(regs, e->args);
  __builtin_memcpy(&e->ctx, &ctx, sizeof(ctx));
  if (attrs) e->ctx.attrs_len = vtctx_copy_attrs((void *)(e + 1), &ctx, attrs);
  bpf_ringbuf_submit(e, 0);
  count(VTCTX_SC_SUBMITTED);
  return 0;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(vtctx_sys_enter_btf, struct pt_regs *regs, long nr) { return on_sys_enter(regs, nr); }

SEC("raw_tp/sys_enter")
int BPF_PROG(vtctx_sys_enter_raw, struct pt_regs *regs, long nr) { return on_sys_enter(regs, nr); }
