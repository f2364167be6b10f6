/*
 * BPF side of the slot recipe (tlsSlot.h): reads the CURRENT task's context. Only valid in
 * programs that run in the context of a target thread (perf samples of it, its syscall entries):
 * bpf_probe_read_user reads the current task's address space, which is exactly the target's.
 *
 * The including program defines `const volatile struct vtctx_slot_recipe vtctx_recipe`.
 */
#ifndef VTCTX_READER_TLS_SLOT_BPF_H_
#define VTCTX_READER_TLS_SLOT_BPF_H_

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

#include "target/tlsSlot.h"

/* TLS_DTV_UNALLOCATED in glibc. */
#define VTCTX_DTV_UNALLOCATED ((__u64)-1)

/* The thread pointer the current task runs with, saved by the kernel at arch_prctl/clone and at
 * every switch-out. (glibc never changes it behind the kernel's back with wrfsbase.) The BTF task
 * pointer is trusted, so this is a plain CO-RE-relocated load, not a probe-read helper call. */
static __always_inline __u64 vtctx_thread_pointer(void) {
  struct task_struct* task = bpf_get_current_task_btf();
#if defined(__TARGET_ARCH_x86)
  return task->thread.fsbase;
#elif defined(__TARGET_ARCH_arm64)
  return task->thread.uw.tp_value;
#else
#error "vtctx-reader: unsupported architecture"
#endif
}

static __always_inline int vtctx_read_u64(__u64* out, __u64 address) {
  return bpf_probe_read_user(out, sizeof(*out), (const void*)address);
}

/* Finds the current thread's slot. Returns VTCTX_CTX_OK and sets *slot, or a failure status. */
static __always_inline int vtctx_slot_address(const volatile struct vtctx_slot_recipe* recipe,
                                              __u64 tp, __u64* slot) {
  __u64 dtv, length, generation, block;

  if (tp == 0) return VTCTX_CTX_NO_TP;
  if (recipe->kind == VTCTX_SLOT_STATIC) {
    *slot = tp + recipe->tp_offset;
    return VTCTX_CTX_OK;
  }
  if (recipe->kind != VTCTX_SLOT_DTV) return VTCTX_CTX_NO_SLOT;
  if (vtctx_read_u64(&dtv, tp + recipe->dtv_ptr_offset)) return VTCTX_CTX_FAULT;
  if (vtctx_read_u64(&length, dtv - recipe->dtv_entry_size)) return VTCTX_CTX_FAULT;
  if (recipe->module_id > length) return VTCTX_CTX_NO_SLOT;
  if (recipe->min_generation != 0) {
    if (vtctx_read_u64(&generation, dtv)) return VTCTX_CTX_FAULT;
    if (generation < recipe->min_generation) return VTCTX_CTX_NO_SLOT;
  }
  if (vtctx_read_u64(&block, dtv + recipe->module_id * recipe->dtv_entry_size))
    return VTCTX_CTX_FAULT;
  if (block == 0 || block == VTCTX_DTV_UNALLOCATED) return VTCTX_CTX_NO_SLOT;
  *slot = block + recipe->module_offset;
  return VTCTX_CTX_OK;
}

/* Fills ctx->record, ctx->status and ctx->header (28 bytes). attrs_len is left 0: the caller
 * copies attrs-data (vtctx_copy_attrs) once it has room for them. */
static __always_inline void vtctx_read_context(const volatile struct vtctx_slot_recipe* recipe,
                                               struct vtctx_context* ctx) {
  __u64 slot = 0, record = 0;
  int status;

  ctx->record = 0;
  ctx->attrs_len = 0;
  status = vtctx_slot_address(recipe, vtctx_thread_pointer(), &slot);
  if (status == VTCTX_CTX_OK) {
    if (vtctx_read_u64(&record, slot)) {
      status = VTCTX_CTX_FAULT;
    } else if (record == 0) {
      status = VTCTX_CTX_NULL;
    } else {
      ctx->record = record;
      if (bpf_probe_read_user(&ctx->header, sizeof(ctx->header), (const void*)record))
        status = VTCTX_CTX_FAULT;
    }
  }
  ctx->status = status;
}

/* Bytes of attrs-data worth copying for `ctx` (0 unless valid and non-empty), capped at the
 * OTEP bound. */
static __always_inline __u32 vtctx_attrs_wanted(const struct vtctx_context* ctx) {
  __u32 n;
  if (ctx->status != VTCTX_CTX_OK || ctx->header.valid != VTCTX_RECORD_VALID) return 0;
  n = ctx->header.attrs_data_size;
  return n > VTCTX_ATTRS_MAX_SIZE ? VTCTX_ATTRS_MAX_SIZE : n;
}

/* Copies `n` (<= VTCTX_ATTRS_MAX_SIZE) bytes of attrs-data into `dst`; returns bytes copied. */
static __always_inline __u16 vtctx_copy_attrs(void* dst, const struct vtctx_context* ctx, __u32 n) {
  if (n > VTCTX_ATTRS_MAX_SIZE) n = VTCTX_ATTRS_MAX_SIZE;
  if (n == 0) return 0;
  if (bpf_probe_read_user(dst, n, (const void*)(ctx->record + VTCTX_RECORD_HEADER_SIZE))) return 0;
  return (__u16)n;
}

#endif /* VTCTX_READER_TLS_SLOT_BPF_H_ */
