/* Shared by verify.bpf.c and verify.cpp: both channels read at every sample (docs/reader.md,
 * "verify"). A sample's two contexts are compared in the kernel; only disagreements leave it. */
#ifndef VTCTX_READER_VERIFY_H_
#define VTCTX_READER_VERIFY_H_

#include "target/identitySlot.h"
#include "target/tlsSlot.h"

/* What a sample found, counted per CPU. A context is "some" when it is valid with both ids. */
enum vtctx_verify_counter {
  VTCTX_VC_SAMPLES = 0,       /* samples of the target */
  VTCTX_VC_BOTH_SAME = 1,     /* both channels: the same context */
  VTCTX_VC_BOTH_NONE = 2,     /* both channels: no context */
  VTCTX_VC_CARRIER_ONLY = 3,  /* only the carrier channel has a context */
  VTCTX_VC_IDENTITY_ONLY = 4, /* only the identity channel has one */
  VTCTX_VC_DISAGREE = 5,      /* both have one, and they differ: wrong data on one of them */
  VTCTX_VC_CHANGED = 6,       /* the identity read saw its record change hands: not compared */
  VTCTX_VC_DROPPED = 7,       /* disagreements not sent (ring buffer full) */
  VTCTX_VC_COUNTERS = 8,
};

/* One disagreement, for the report. */
struct vtctx_verify_event {
  __u64 ts_ns;
  __u32 tid;
  __u32 reserved;
  __u64 java_thread_id; /* the mounted thread the identity channel followed */
  struct vtctx_context carrier;
  struct vtctx_context identity;
};

#endif /* VTCTX_READER_VERIFY_H_ */
