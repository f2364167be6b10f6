#include "commands/bpfSupport.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "target/errnoStatus.h"

namespace vtctx::reader {
namespace {

constexpr int kCapSysAdmin = 21;
constexpr int kCapPerfmon = 38;
constexpr int kCapBpf = 39;

std::atomic<bool> g_verbose{false};
volatile sig_atomic_t g_stop = 0;

int LibbpfPrint(enum libbpf_print_level level, const char* format, va_list args) {
  if (level == LIBBPF_DEBUG || (level == LIBBPF_INFO && !g_verbose.load())) return 0;
  return vfprintf(stderr, format, args);
}

void OnStopSignal(int) { g_stop = 1; }

// Effective capability set of this process, from /proc/self/status.
uint64_t EffectiveCaps() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("CapEff:", 0) == 0) {
      uint64_t caps = 0;
      std::string hex = line.substr(7);
      hex.erase(0, hex.find_first_not_of(" \t"));
      if (absl::SimpleHexAtoi(hex, &caps)) return caps;
    }
  }
  return 0;
}

}  // namespace

absl::Status CheckBpfAccess() {
  const uint64_t caps = EffectiveCaps();
  auto has = [caps](int cap) { return (caps >> cap) & 1; };
  if (!has(kCapSysAdmin) && !(has(kCapBpf) && has(kCapPerfmon))) {
    return absl::PermissionDeniedError(
        "loading BPF programs needs root (or CAP_BPF and CAP_PERFMON); run with sudo");
  }
  if (access("/sys/kernel/btf/vmlinux", R_OK) != 0) {
    return absl::UnimplementedError(
        "the kernel has no BTF (/sys/kernel/btf/vmlinux missing); CO-RE programs cannot load "
        "(needs CONFIG_DEBUG_INFO_BTF=y)");
  }
  return absl::OkStatus();
}

void SetLibbpfVerbose(bool verbose) {
  g_verbose.store(verbose);
  libbpf_set_print(LibbpfPrint);
}

void InstallStopHandlers() {
  struct sigaction sa {};
  sa.sa_handler = OnStopSignal;
  sigemptyset(&sa.sa_mask);
  // SA_RESTART: a write(2) to stdout blocked on a full pipe resumes instead of failing with EINTR,
  // which makes stdio drop its buffer (a cut JSON line). The poll loop still wakes up: epoll_wait
  // is never restarted after a handler (signal(7)), and it polls with a timeout anyway.
  sa.sa_flags = SA_RESTART;
  for (int signal : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) sigaction(signal, &sa, nullptr);
}

bool StopRequested() { return g_stop != 0; }

bool StdoutClosed() {
  pollfd out = kStdoutClosed;
  return poll(&out, 1, 0) == 1 && (out.revents & (POLLERR | POLLHUP)) != 0;
}

absl::Status FlushStdout() {
  // After a failed write stdio keeps the error flag; errno is that of the last failure.
  if (fflush(stdout) == 0 && !ferror(stdout)) return absl::OkStatus();
  const int err = errno;
  if (StdoutClosed()) return absl::OkStatus();
  return ErrnoStatus(err, "writing stdout");
}

absl::Status ReadEventBatch(ring_buffer* rb, EventBatch& batch, std::span<const pollfd> wake) {
  batch.left_ = EventBatch::kEvents;
  // Events come without wakeups unless the ring fills up (ringbufNotify.bpf.h): wait at most one
  // interval, then consume whatever is there. The ring buffer's epoll fd is level-triggered: it
  // polls readable while events are waiting.
  if (!batch.was_full_) {
    std::vector<pollfd> fds{{ring_buffer__epoll_fd(rb), POLLIN, 0}};
    fds.insert(fds.end(), wake.begin(), wake.end());
    if (poll(fds.data(), fds.size(), kPollIntervalMs) < 0 && errno != EINTR) {
      return absl::InternalError(absl::StrCat("waiting for events: ", strerror(errno)));
    }
  }
  const int n = ring_buffer__consume(rb);
  batch.was_full_ = n == EventBatch::kFull;
  if (n < 0 && n != -EINTR && n != EventBatch::kFull) {
    return absl::InternalError(absl::StrCat("consuming the ring buffer: ", strerror(-n)));
  }
  return absl::OkStatus();
}

void DrainEvents(ring_buffer* rb, EventBatch& batch) {
  batch.left_ = UINT64_MAX;
  ring_buffer__consume(rb);
}

uint64_t SumPerCpu(int map_fd, uint32_t key) {
  const int cpus = libbpf_num_possible_cpus();
  if (cpus <= 0) return 0;
  std::vector<uint64_t> values(static_cast<size_t>(cpus));
  if (bpf_map_lookup_elem(map_fd, &key, values.data()) != 0) return 0;
  uint64_t sum = 0;
  for (uint64_t v : values) sum += v;
  return sum;
}

absl::StatusOr<int> EnableBpfRunTimeStats() {
  const int fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
  if (fd < 0) return ErrnoStatus(-fd, "bpf_enable_stats(BPF_STATS_RUN_TIME)");
  return fd;
}

ProgramRunStats ReadProgramRunStats(int prog_fd) {
  bpf_prog_info info{};
  __u32 len = sizeof info;
  if (bpf_obj_get_info_by_fd(prog_fd, &info, &len) != 0) return {};
  return {info.run_cnt, info.run_time_ns};
}

void BpfLinkDeleter::operator()(bpf_link* link) const { bpf_link__destroy(link); }

uint64_t SamplePeriodNs(long hz) { return 1'000'000'000u / static_cast<uint64_t>(hz); }

absl::Status AttachCpuClocks(bpf_program* program, long hz, std::vector<BpfLink>& links) {
  const size_t before = links.size();
  const int cpus = libbpf_num_possible_cpus();
  for (int cpu = 0; cpu < cpus; ++cpu) {
    perf_event_attr attr{};
    attr.size = sizeof attr;
    attr.type = PERF_TYPE_SOFTWARE;
    attr.config = PERF_COUNT_SW_CPU_CLOCK;
    attr.sample_period = SamplePeriodNs(hz);
    const int fd =
        static_cast<int>(syscall(__NR_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC));
    if (fd < 0) {
      if (errno == ENODEV) continue;  // offline CPU
      return absl::InternalError(
          absl::StrCat("perf_event_open on CPU ", cpu, ": ", strerror(errno)));
    }
    bpf_link* link = bpf_program__attach_perf_event(program, fd);  // owns fd once attached
    if (link == nullptr) {
      const int err = errno;
      close(fd);
      return absl::InternalError(absl::StrCat("attaching to CPU ", cpu, ": ", strerror(err)));
    }
    links.emplace_back(link);
  }
  if (links.size() == before) return absl::InternalError("no online CPU to sample");
  return absl::OkStatus();
}

}  // namespace vtctx::reader
