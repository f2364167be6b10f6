/* Shared by profile.bpf.c, profile.cpp and profileReport.cpp. */
#ifndef VTCTX_READER_PROFILE_H_
#define VTCTX_READER_PROFILE_H_

#include "target/tlsSlot.h"

/* Frames per stack: the kernel's default perf_event_max_stack, which bpf_get_stack also obeys. A
 * stack that fills all of them may have lost its outermost frames (user space says so). */
#define VTCTX_MAX_STACK_DEPTH 127
#define VTCTX_STACK_BYTES (VTCTX_MAX_STACK_DEPTH * 8)
/* The stacks of one sample event: the user stack's frames, then the kernel stack's. */
#define VTCTX_STACKS_SIZE (2 * VTCTX_STACK_BYTES)
/* Without frame pointers in JIT code (-XX:-PreserveFramePointer, rodata `copy_user_stack`) the
 * kernel's frame-pointer walk stops at the first compiled Java frame; the sample then carries its
 * user registers and a copy of its user stack instead, unwound in user space
 * (hotspot/userStackUnwind.h). The copy is whole pages from the page holding sp upwards, as many
 * as are mapped: at least VTCTX_USER_COPY_BYTES - 4095 bytes above sp. */
#define VTCTX_USER_COPY_PAGES 8
#define VTCTX_USER_COPY_BYTES (VTCTX_USER_COPY_PAGES * 4096)
#define VTCTX_STACKS_COPY_SIZE (VTCTX_STACKS_SIZE + VTCTX_USER_COPY_BYTES)

/* How samples leave the kernel (rodata `mode`). Aggregating in a per-CPU hash map keeps the
 * per-sample cost low: a ring-buffer event per sample costs about twice as much, because every
 * event's cache lines move to the consumer's CPU. Stacks always travel in the sample's own event
 * (no shared stack map that could collide and lose them). */
enum vtctx_profile_mode {
  VTCTX_PROFILE_EVENTS = 0, /* one ring-buffer event per sample (json, stacks, attributes) */
  VTCTX_PROFILE_COUNTS = 1, /* counts per context (--format table) */
};

/* Aggregation key of VTCTX_PROFILE_COUNTS. Ids are zeroed unless status == OK and valid == 1, so
 * every sample without a usable context counts under one key per (status, valid). */
struct vtctx_profile_key {
  __u8 trace_id[16];
  __u8 span_id[8];
  __u8 status; /* enum vtctx_ctx_status */
  __u8 valid;
  __u8 trace_flags;
  __u8 reserved;
};

/* Ring-buffer event of VTCTX_PROFILE_EVENTS. Used for --format json, for stacks (folded, svg,
 * pprof) and when samples are aggregated by attribute in user space (table --group-by, folded
 * --folded-attrs): attribute values cannot be part of the in-kernel aggregation key cheaply.
 * Layout: this struct; then, if the record's attrs were wanted, VTCTX_ATTRS_MAX_SIZE bytes whose
 * first ctx.attrs_len are attrs-data; then, ending the record, `stacks_size` bytes of stacks
 * (VTCTX_STACKS_SIZE with rodata `event_stacks`, else 0): VTCTX_MAX_STACK_DEPTH user addresses
 * (innermost first), then as many kernel addresses, of which user_stack and kernel_stack bytes
 * are written; with rodata `copy_user_stack` (stacks_size VTCTX_STACKS_COPY_SIZE) the user
 * addresses are not walked (user_stack 0) and VTCTX_USER_COPY_BYTES of user stack copy follow,
 * of which copy_bytes, starting at address copy_base, were read. */
struct vtctx_sample_event {
  __u64 ts_ns;
  __u32 tid;
  __u32 tgid;
  __u32 cpu;
  __s32 user_stack;   /* bytes of user stack written, or -errno of bpf_get_stack */
  __s32 kernel_stack; /* the same for the kernel stack */
  __u32 stacks_size;  /* 0, VTCTX_STACKS_SIZE or VTCTX_STACKS_COPY_SIZE: the stacks region */
  __u32 copy_bytes;   /* bytes of user stack copied (a multiple of 4096; 0: none) */
  __u64 copy_base;    /* user address of the copy's first byte (sp's page) */
  __u64 user_ip;      /* the interrupted user registers (with the copy only) */
  __u64 user_sp;
  __u64 user_bp;
  struct vtctx_context ctx;
};

/* Rare events only: the samples themselves are counted by their aggregation or event. */
enum vtctx_profile_counter {
  VTCTX_PC_DROPPED = 0,      /* samples lost: ring buffer or aggregation map full */
  VTCTX_PC_AGENT_THREAD = 1, /* samples of the agent's own threads, left out (not matched) */
  VTCTX_PC_COUNTERS = 2,
};

#endif /* VTCTX_READER_PROFILE_H_ */
