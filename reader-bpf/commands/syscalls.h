/* Shared by syscalls.bpf.c and syscalls.cpp: the ring-buffer event and the counters. */
#ifndef VTCTX_READER_SYSCALLS_H_
#define VTCTX_READER_SYSCALLS_H_

#include "target/tlsSlot.h"

/* Syscall numbers the filter can select (a bitmap in rodata). */
#define VTCTX_SYSCALL_MAX 1024

struct vtctx_syscall_event {
  __u64 ts_ns; /* bpf_ktime_get_ns() at entry (CLOCK_MONOTONIC) */
  __u32 tid;
  __u32 tgid;
  __s64 nr;
  __u64 args[6];
  struct vtctx_context ctx;
  /* followed by ctx.attrs_len bytes of attrs-data */
};

/* Per-CPU counters (BPF_MAP_TYPE_PERCPU_ARRAY `counters`). */
enum vtctx_syscall_counter {
  VTCTX_SC_MATCHED = 0, /* entries of the target's selected syscalls (submitted + dropped) */
  VTCTX_SC_DROPPED = 1, /* events lost because the ring buffer was full */
  VTCTX_SC_COUNTERS = 2,
};

#endif /* VTCTX_READER_SYSCALLS_H_ */
