#include "readerResync.h"

#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <new>

#include "log.h"

namespace vtctx {
namespace {

uint64_t NowNs(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

// The burst's instructions must be this library's: a sample taken here has its PC in
// libvtctx.so's text, the address a profiler that synchronised before the attach cannot place.
// noinline keeps the loop in this function; the asm barrier keeps the compiler from deleting it.
// Runs until the thread has had `cpu_ns` more CPU time or CLOCK_MONOTONIC reaches `wall_end_ns`.
__attribute__((noinline)) void SpinInLibrary(uint64_t cpu_ns, uint64_t wall_end_ns) {
  const uint64_t cpu_end = NowNs(CLOCK_THREAD_CPUTIME_ID) + cpu_ns;
  for (;;) {
    for (int i = 0; i < 100000; ++i) asm volatile("" ::: "memory");
    if (NowNs(CLOCK_THREAD_CPUTIME_ID) >= cpu_end || NowNs(CLOCK_MONOTONIC) >= wall_end_ns) return;
  }
}

void* ResyncThread(void* arg) {
  const ResyncSchedule s = *static_cast<ResyncSchedule*>(arg);
  delete static_cast<ResyncSchedule*>(arg);
  pthread_setname_np(pthread_self(), "vtctx-resync");
  // The application's threads come first: the burst only needs CPU time, not wall time.
  setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 19);
  const uint64_t interval_ns = uint64_t{s.interval_ms} * 1000000u;
  const uint64_t start_ns = NowNs(CLOCK_MONOTONIC);
  for (uint32_t i = 0; i < s.bursts; ++i) {
    const uint64_t due_ns = start_ns + i * interval_ns;
    const timespec due{static_cast<time_t>(due_ns / 1000000000u),
                       static_cast<long>(due_ns % 1000000000u)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &due, nullptr) == EINTR) {
    }
    SpinInLibrary(uint64_t{s.burst_cpu_ms} * 1000000u, due_ns + interval_ns);
  }
  LogDebug("reader resync: done, %u bursts, %llu ms of CPU", s.bursts,
           static_cast<unsigned long long>(NowNs(CLOCK_THREAD_CPUTIME_ID) / 1000000u));
  return nullptr;
}

}  // namespace

std::string StartReaderResync(const ResyncSchedule& schedule) {
  if (schedule.bursts == 0) return {};
  auto* arg = new (std::nothrow) ResyncSchedule(schedule);
  if (arg == nullptr) return "out of memory";
  // The thread inherits this mask: no JVM signal (e.g. SIGQUIT for thread dumps) lands on it.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &old);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_attr_setstacksize(&attr, 64 * 1024);
  pthread_t thread;
  const int err = pthread_create(&thread, &attr, ResyncThread, arg);
  pthread_attr_destroy(&attr);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (err != 0) {
    delete arg;
    return std::string("pthread_create: ") + std::strerror(err);
  }
  return {};
}

}  // namespace vtctx
