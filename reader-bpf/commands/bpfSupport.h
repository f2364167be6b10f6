// The pieces of a BPF command run (bpfRun.h): preflight checks with one-line reasons, libbpf
// logging, stop signals, stdout as a stop condition, bounded ring-buffer reads, per-CPU counters
// and kernel BPF run-time statistics.
#ifndef VTCTX_READER_BPF_SUPPORT_H_
#define VTCTX_READER_BPF_SUPPORT_H_

#include <poll.h>
#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

struct ring_buffer;  // libbpf
struct bpf_link;
struct bpf_program;

namespace vtctx::reader {

// How long the consumers sleep between ring-buffer reads when no wakeup comes (see
// ringbufNotify.bpf.h): the latency of events on a quiet ring. 20 ms.
inline constexpr int kPollIntervalMs = 20;

// PermissionDenied unless we may load tracing programs (root, or CAP_BPF + CAP_PERFMON);
// Unimplemented if the kernel has no BTF (/sys/kernel/btf/vmlinux), which CO-RE needs.
absl::Status CheckBpfAccess();

// libbpf's own messages go to stderr only with --verbose (warnings always).
void SetLibbpfVerbose(bool verbose);

// SIGINT, SIGTERM, SIGHUP and SIGPIPE set a flag (a blocking poll returns EINTR; writes to stdout
// are restarted; a write to a closed pipe fails with EPIPE instead of killing the reader).
void InstallStopHandlers();
bool StopRequested();

// stdout closed by its reader (`vtctx-reader syscalls ... | head -1`): the pipe polls POLLERR
// (a socket or terminal POLLHUP), whether or not a write has failed yet. Not an error of the
// reader: a run ends cleanly. kStdoutClosed in a ReadEventBatch wake set ends a wait then.
bool StdoutClosed();
inline constexpr pollfd kStdoutClosed = {STDOUT_FILENO, 0, 0};  // POLLERR/POLLHUP: always
// Flushes stdout; a failure other than a closed stdout is returned.
absl::Status FlushStdout();

// Bounds each ring-buffer read. libbpf's ring_buffer__poll/consume process every record present
// and keep going while the BPF side adds more: under a flood of events faster than the reader
// handles them, one call would never return, and a stop request, --duration or the target's exit
// would go unseen. A consumer owns one EventBatch and calls Count() in its callback per event.
class EventBatch {
 public:
  // What Count() returns to end a read; libbpf returns it unchanged (the event is consumed).
  static constexpr int kFull = -ECANCELED;
  // Events per read: a few milliseconds of printing.
  static constexpr uint64_t kEvents = 4096;

  // In the ring-buffer callback, once per handled event: 0 to go on, kFull to end the read.
  int Count() {
    if (left_ <= 1) return kFull;
    --left_;
    return 0;
  }

 private:
  friend absl::Status ReadEventBatch(::ring_buffer* rb, EventBatch& batch,
                                     std::span<const pollfd> wake);
  friend void DrainEvents(::ring_buffer* rb, EventBatch& batch);
  uint64_t left_ = 0;
  bool was_full_ = false;  // the last read ended on kFull: more events are waiting
};

// One read of at most EventBatch::kEvents events: waits up to kPollIntervalMs for a wakeup first,
// unless the previous read was full; the wait also ends when one of `wake` is ready (the caller
// checks which). An error (not EINTR) is returned as InternalError.
absl::Status ReadEventBatch(::ring_buffer* rb, EventBatch& batch, std::span<const pollfd> wake);

// Consumes every event left, without a bound: for the end of a run, after detaching (so bounded by
// the ring's size).
void DrainEvents(::ring_buffer* rb, EventBatch& batch);

// Owns a BPF link (and the perf fd it was attached through).
struct BpfLinkDeleter {
  void operator()(::bpf_link* link) const;
};
using BpfLink = std::unique_ptr<::bpf_link, BpfLinkDeleter>;

// The CPU time one sample at `hz` stands for (cpu-clock counts nanoseconds: a fixed period is
// exact; the kernel turns a cpu-clock frequency into this same period).
uint64_t SamplePeriodNs(long hz);

// Attaches `program` to a cpu-clock perf event on every online CPU (all tasks: the program
// filters), firing every SamplePeriodNs(hz) of CPU time; the links are appended to `links`.
absl::Status AttachCpuClocks(::bpf_program* program, long hz, std::vector<BpfLink>& links);

// Sum over CPUs of entry `key` of a BPF_MAP_TYPE_PERCPU_ARRAY of u64.
uint64_t SumPerCpu(int map_fd, uint32_t key);

// Kernel BPF statistics of one program (run count and total run time, ns). Enabled for the life
// of the returned fd by bpf_enable_stats(BPF_STATS_RUN_TIME), or by sysctl
// kernel.bpf_stats_enabled.
absl::StatusOr<int> EnableBpfRunTimeStats();
struct ProgramRunStats {
  uint64_t run_cnt = 0;
  uint64_t run_time_ns = 0;
};
ProgramRunStats ReadProgramRunStats(int prog_fd);

}  // namespace vtctx::reader

#endif  // VTCTX_READER_BPF_SUPPORT_H_
