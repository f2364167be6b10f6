/*
 * The `counters` map of a BPF program (a per-CPU array of u64, read by user space with SumPerCpu)
 * and count(). The including program defines VTCTX_COUNTERS, the number of slots, first.
 */
#ifndef VTCTX_READER_PER_CPU_COUNTERS_BPF_H_
#define VTCTX_READER_PER_CPU_COUNTERS_BPF_H_

#include <bpf/bpf_helpers.h>

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, VTCTX_COUNTERS);
  __type(key, __u32);
  __type(value, __u64);
} counters SEC(".maps");

static __always_inline void count(__u32 which) {
  __u64* c = bpf_map_lookup_elem(&counters, &which);
  if (c) *c += 1; /* per-CPU slot: no other writer while this program runs on this CPU */
}

#endif /* VTCTX_READER_PER_CPU_COUNTERS_BPF_H_ */
