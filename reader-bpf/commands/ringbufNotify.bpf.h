/*
 * Adaptive ring-buffer notification. Waking the consumer on every event costs a self-IPI per
 * event (about 200 ns of a sample's BPF run time here), so events are submitted without wakeup
 * and user space polls every kPollIntervalMs (bpfSupport.h). The one event whose
 * reservation makes the unconsumed data cross `wakeup_bytes` (a quarter of the ring, set before
 * load) wakes the consumer at once, so a burst cannot fill the ring while it sleeps; an
 * overloaded consumer (ring staying above the mark) is not woken again and again.
 */
#ifndef VTCTX_READER_RINGBUF_NOTIFY_BPF_H_
#define VTCTX_READER_RINGBUF_NOTIFY_BPF_H_

#include <bpf/bpf_helpers.h>

const volatile __u64 wakeup_bytes = 1 << 20;

/* Flags for bpf_ringbuf_submit of a record of `size` bytes already reserved in `ring`. */
static __always_inline __u64 vtctx_submit_flags(void* ring, __u64 size) {
  __u64 unconsumed = bpf_ringbuf_query(ring, BPF_RB_AVAIL_DATA); /* includes this record */
  __u64 record = ((size + 7) & ~7ull) + 8; /* rounded up, plus the 8-byte record header */
  __u64 before = unconsumed > record ? unconsumed - record : 0;

  return unconsumed >= wakeup_bytes && before < wakeup_bytes ? BPF_RB_FORCE_WAKEUP
                                                             : BPF_RB_NO_WAKEUP;
}

#endif /* VTCTX_READER_RINGBUF_NOTIFY_BPF_H_ */
