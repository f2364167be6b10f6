// CLOCK_MONOTONIC, the clock of BPF timestamps (bpf_ktime_get_ns) and of task start times: the
// reader compares them with its own readings (no time namespace offset, docs/reader.md limits).
#ifndef VTCTX_READER_MONOTONIC_CLOCK_H_
#define VTCTX_READER_MONOTONIC_CLOCK_H_

#include <time.h>

#include <cstdint>

namespace vtctx::reader {

inline uint64_t MonotonicNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(ts.tv_nsec);
}

inline double MonotonicSeconds() { return static_cast<double>(MonotonicNs()) * 1e-9; }

}  // namespace vtctx::reader

#endif  // VTCTX_READER_MONOTONIC_CLOCK_H_
