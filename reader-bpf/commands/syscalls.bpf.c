// SPDX-License-Identifier: Apache-2.0
/* Syscall entry of the target process: one ring-buffer event per entry of a selected syscall,
 * with the context of the code the calling thread runs (its `otel_thread_ctx_v1`, or the
 * identity channel's record of its mounted thread: identityRead.bpf.h). Runs as a BTF tracepoint
 * (tp_btf) or a raw tracepoint (raw_tp); neither needs tracefs. */
// vmlinux.h must come first: it defines the kernel types everything below uses.
// clang-format off
#include "vmlinux.h"

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "commands/syscalls.h"
#include "commands/ringbufNotify.bpf.h"
#include "commands/targetFilter.bpf.h"
#include "commands/identityRead.bpf.h"
// clang-format on

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Set by user space before load. */
const volatile __u64 syscall_mask[VTCTX_SYSCALL_MAX / 64] = {};
/* Benchmark aid (--bpf-floor): stop right after the filter, to measure the fixed cost of a run. */
const volatile bool floor_only = false;

struct {
  __uint(type, BPF_MAP_TYPE_RINGBUF);
  __uint(max_entries, 16 << 20); /* resized by user space (--ringbuf-mb) */
} events SEC(".maps");

#define VTCTX_COUNTERS VTCTX_SC_COUNTERS
#include "commands/perCpuCounters.bpf.h"

/* Syscall arguments from the user registers saved at entry. `regs` is a trusted BTF pointer in
 * tp_btf programs (plain loads, CO-RE relocated through vmlinux.h's preserve_access_index) but
 * must be read with bpf_probe_read_kernel in raw_tp programs. */
#if defined(__TARGET_ARCH_x86)
#define ARG_REGS(R) R(0, di) R(1, si) R(2, dx) R(3, r10) R(4, r8) R(5, r9) /* 4th: r10, not rcx */
#elif defined(__TARGET_ARCH_arm64)
#define ARG_REGS(R) \
  R(0, regs[0]) R(1, regs[1]) R(2, regs[2]) R(3, regs[3]) R(4, regs[4]) R(5, regs[5])
#endif
#define DIRECT(i, reg) args[i] = regs->reg;
#define PROBED(i, reg) args[i] = BPF_CORE_READ(regs, reg);

static __always_inline void read_args(struct pt_regs* regs, __u64 args[6], bool trusted) {
  if (trusted) {
    ARG_REGS(DIRECT)
  } else {
    ARG_REGS(PROBED)
  }
}

static __always_inline void fill(struct vtctx_syscall_event* e, struct pt_regs* regs, long nr,
                                 __u64 id, const struct vtctx_context* ctx,
                                 const struct vtctx_identity_hit* hit, bool trusted, __u32 attrs) {
  e->ts_ns = bpf_ktime_get_ns();
  e->tid = (__u32)id;
  e->tgid = target_tgid;
  e->nr = nr;
  read_args(regs, e->args, trusted);
  __builtin_memcpy(&e->ctx, ctx, sizeof(*ctx));
  if (attrs) e->ctx.attrs_len = vtctx_copy_attrs((void*)(e + 1), ctx, attrs);
  vtctx_confirm_current_context(&e->ctx, hit);
}

static __always_inline int on_sys_enter(struct pt_regs* regs, long nr, bool trusted) {
  struct vtctx_syscall_event* e;
  struct vtctx_context ctx = {};
  struct vtctx_identity_hit hit = {};
  __u64 id = bpf_get_current_pid_tgid();
  __u32 attrs;

  if (!vtctx_is_target(id)) return 0;
  if (nr < 0 || nr >= VTCTX_SYSCALL_MAX) return 0;
  if (!((syscall_mask[nr >> 6] >> (nr & 63)) & 1)) return 0;
  count(VTCTX_SC_MATCHED);
  if (floor_only) return 0;

  vtctx_read_current_context(&ctx, &hit);
  attrs = vtctx_attrs_wanted(&ctx);
  /* Two fixed reservation sizes keep the common (no attrs) event small; each is filled in its
   * own branch so the verifier checks the attrs copy against the size reserved. */
  if (attrs) {
    e = bpf_ringbuf_reserve(&events, sizeof(*e) + VTCTX_ATTRS_MAX_SIZE, 0);
    if (e) fill(e, regs, nr, id, &ctx, &hit, trusted, attrs);
  } else {
    e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
    if (e) fill(e, regs, nr, id, &ctx, &hit, trusted, 0);
  }
  if (!e) {
    count(VTCTX_SC_DROPPED);
    return 0;
  }
  bpf_ringbuf_submit(e,
                     vtctx_submit_flags(&events, sizeof(*e) + (attrs ? VTCTX_ATTRS_MAX_SIZE : 0)));
  return 0;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(vtctx_sys_enter_btf, struct pt_regs* regs, long nr) {
  return on_sys_enter(regs, nr, true);
}

SEC("raw_tp/sys_enter")
int BPF_PROG(vtctx_sys_enter_raw, struct pt_regs* regs, long nr) {
  return on_sys_enter(regs, nr, false);
}
