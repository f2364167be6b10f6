#include "poolTrimmer.h"

#include <pthread.h>
#include <signal.h>

#include <cerrno>
#include <ctime>

namespace vtctx {
namespace {

constexpr timespec kTrimDelay = {1, 0};  // 1 s

void* TrimLoop(void* arg) {
  RecordPool& pool = *static_cast<RecordPool*>(arg);
  for (;;) {
    pool.WaitForTrimRequest();
    timespec left = kTrimDelay;
    while (nanosleep(&left, &left) != 0 && errno == EINTR) {
    }
    pool.TrimIfWanted();
  }
  return nullptr;
}

bool Start(RecordPool& pool) {
  pthread_attr_t attr;
  if (pthread_attr_init(&attr) != 0) return false;
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_attr_setstacksize(&attr, 64 * 1024);  // a few frames, no large locals
  // No signal is for this thread: the JVM's handlers expect its own threads or the one it chose.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  pthread_t thread;
  const bool ok = pthread_create(&thread, &attr, TrimLoop, &pool) == 0;
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  pthread_attr_destroy(&attr);
  if (!ok) return false;
  pthread_setname_np(thread, "vtctx-pool-trim");
  pool.EnableTrimRequests();
  return true;
}

}  // namespace

bool StartPoolTrimmer(RecordPool& pool) {
  static const bool started = Start(pool);
  return started;
}

}  // namespace vtctx
