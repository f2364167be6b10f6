/* Shared by profile.bpf.c and profileCommand.cpp: the sample event and the counters. */
#ifndef VTCTX_READER_PROFILE_H_
#define VTCTX_READER_PROFILE_H_

#include "tlsSlot.h"

#define VTCTX_MAX_STACK_DEPTH 127

struct vtctx_sample_event {
  __u64 ts_ns;
  __u32 tid;
  __u32 tgid;
  __u32 cpu;
  __s32 user_stack_bytes;   /* bytes of user_stack filled; <= 0: none */
  __s32 kernel_stack_bytes; /* bytes of kernel_stack filled; <= 0: none */
  __u32 reserved;
  struct vtctx_context ctx;
  __u64 user_stack[VTCTX_MAX_STACK_DEPTH];
  __u64 kernel_stack[VTCTX_MAX_STACK_DEPTH];
  __u8 attrs[VTCTX_ATTRS_MAX_SIZE];
};

enum vtctx_profile_counter {
  VTCTX_PC_SAMPLES = 0,   /* samples of the target */
  VTCTX_PC_SUBMITTED = 1, /* events put into the ring buffer */
  VTCTX_PC_DROPPED = 2,   /* samples lost because the ring buffer was full */
  VTCTX_PC_COUNTERS = 3,
};

#endif /* VTCTX_READER_PROFILE_H_ */
