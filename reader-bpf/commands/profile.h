/* Shared by profile.bpf.c, profile.cpp and profileReport.cpp. */
#ifndef VTCTX_READER_PROFILE_H_
#define VTCTX_READER_PROFILE_H_

#include "target/tlsSlot.h"

#define VTCTX_MAX_STACK_DEPTH 127

/* How samples leave the kernel (rodata `mode`). Aggregating in a per-CPU hash map keeps the
 * per-sample cost low: a ring-buffer event per sample costs about twice as much, because every
 * event's cache lines move to the consumer's CPU. */
enum vtctx_profile_mode {
  VTCTX_PROFILE_EVENTS = 0, /* one ring-buffer event per sample (--format json) */
  VTCTX_PROFILE_COUNTS = 1, /* counts per context (--format table) */
  VTCTX_PROFILE_STACKS = 2, /* counts per context and user/kernel stack (--format folded) */
};

/* Aggregation key. Ids are zeroed unless status == OK and valid == 1, so every sample without a
 * usable context counts under one key per (status, valid). */
struct vtctx_profile_key {
  __u8 trace_id[16];
  __u8 span_id[8];
  __u8 status; /* enum vtctx_ctx_status */
  __u8 valid;
  __u8 trace_flags;
  __u8 reserved;
  __s32 user_stack_id;   /* id in `stacks`; negative: none (-errno of bpf_get_stackid, or -1) */
  __s32 kernel_stack_id; /* same for the kernel stack */
};

/* Ring-buffer event of VTCTX_PROFILE_EVENTS; followed by attrs-data if ctx.attrs_len > 0 (the
 * reservation then has VTCTX_ATTRS_MAX_SIZE more bytes). Used for --format json, and when samples
 * are aggregated by attribute in user space (table --group-by, folded --folded-attrs): attribute
 * values cannot be part of the in-kernel aggregation key cheaply. Stack ids are filled only with
 * rodata `event_stacks` (else -1). */
struct vtctx_sample_event {
  __u64 ts_ns;
  __u32 tid;
  __u32 tgid;
  __u32 cpu;
  __s32 user_stack_id;   /* id in `stacks`, negative: none (as in vtctx_profile_key) */
  __s32 kernel_stack_id; /* same for the kernel stack */
  __u32 reserved;
  struct vtctx_context ctx;
};

/* Rare events only: the samples themselves are counted by their aggregation or event. */
enum vtctx_profile_counter {
  VTCTX_PC_DROPPED = 0,    /* samples lost: ring buffer or aggregation map full */
  VTCTX_PC_STACK_LOST = 1, /* samples counted without a stack (stack map full or collision) */
  VTCTX_PC_COUNTERS = 2,
};

#endif /* VTCTX_READER_PROFILE_H_ */
