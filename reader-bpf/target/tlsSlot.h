/*
 * How to find a thread's `otel_thread_ctx_v1` slot, and what reading it produced: plain C shared
 * by the BPF programs (tlsSlot.bpf.h) and user space (tlsResolver.cpp, which fills the recipe
 * and computes the same slot address for `resolve`).
 *
 * Static TLS:  slot = tp + tp_offset
 * Dynamic TLS: dtv  = *(u64 *)(tp + dtv_ptr_offset)
 *              require module_id <= dtv[-1] (glibc: DTV length) and,
 *              if min_generation != 0, dtv[0] >= min_generation (glibc: DTV generation)
 *              block = dtv[module_id].pointer, unusable if 0 or -1 (TLS_DTV_UNALLOCATED)
 *              slot  = block + module_offset
 * where tp is the thread pointer (x86-64: fsbase; aarch64: TPIDR_EL0) and dtv[i] is at
 * dtv + i * dtv_entry_size.
 */
#ifndef VTCTX_READER_TLS_SLOT_H_
#define VTCTX_READER_TLS_SLOT_H_

#ifndef __bpf__
#include <linux/types.h>
#endif

#include "vtctx/record.h"

enum vtctx_slot_kind {
  VTCTX_SLOT_NONE = 0,
  VTCTX_SLOT_STATIC = 1,
  VTCTX_SLOT_DTV = 2,
};

struct vtctx_slot_recipe {
  __u32 kind; /* enum vtctx_slot_kind */
  __u32 dtv_entry_size;
  __s64 tp_offset;      /* static */
  __s64 dtv_ptr_offset; /* dynamic */
  __u64 module_id;      /* dynamic */
  __u64 module_offset;  /* dynamic */
  __u64 min_generation; /* dynamic; 0 = not checked */
};

/* Outcome of reading the context of the current thread. */
enum vtctx_ctx_status {
  VTCTX_CTX_OK = 0,      /* record pointer non-NULL and header read */
  VTCTX_CTX_NULL = 1,    /* slot holds NULL: no record published */
  VTCTX_CTX_NO_SLOT = 2, /* dynamic TLS block not allocated in this thread (yet) */
  VTCTX_CTX_FAULT = 3,   /* a user memory read failed (page not present, bad pointer) */
  VTCTX_CTX_NO_TP = 4,   /* thread pointer is 0 (kernel thread / not set up) */
  /* Identity channel (identitySlot.h) only: */
  VTCTX_CTX_NO_JAVA_THREAD = 5, /* the OS thread is no JavaThread (libjvm's slot holds NULL) */
  VTCTX_CTX_CHANGED = 6,        /* the index or the mounted thread changed during the read */
};

/* A context as read at an event: part of the ring-buffer events' wire format. Naturally aligned
 * with explicit padding (48 bytes), so both sides agree without packing. */
struct vtctx_context {
  __u64 record; /* value of the slot (record address), 0 if none */
  __u8 status;  /* enum vtctx_ctx_status */
  __u8 reserved;
  __u16 attrs_len; /* bytes of attrs-data copied into the event (0 if none) */
  __u32 reserved2;
  struct vtctx_record_header header; /* valid only when status == VTCTX_CTX_OK */
  __u8 pad[4];
};

#endif /* VTCTX_READER_TLS_SLOT_H_ */
