#include "maintenance.h"

#include <pthread.h>
#include <signal.h>
#include <time.h>

#include <cerrno>

#include "agentState.h"
#include "log.h"
#include "recordViews.h"
#include "threadState.h"
#include "writerWatch.h"

namespace vtctx {
namespace {

constexpr timespec kTick = {0, 100000000};  // 100 ms
constexpr int kTicksPerSecond = 10;
constexpr int kWriterCheckTicks = 100;  // other writers: every 10 s

struct Maintenance {
  JavaVM* vm;
  RecordPool* pool;
  JNIEnv* jni = nullptr;  // once attached
};

// The JNI environment of this thread, attaching it as a daemon on first use; null if the JVM
// refuses (it is still starting, or shutting down): then the next tick tries again.
JNIEnv* Jni(Maintenance& m) {
  if (m.jni != nullptr) return m.jni;
  JavaVMAttachArgs args{JNI_VERSION_1_8, const_cast<char*>("vtctx-maintenance"), nullptr};
  void* env = nullptr;
  if (m.vm->AttachCurrentThreadAsDaemon(&env, &args) == JNI_OK) m.jni = static_cast<JNIEnv*>(env);
  return m.jni;
}

void* Loop(void* arg) {
  Maintenance& m = *static_cast<Maintenance*>(arg);
  bool trim_pending = false;
  for (int tick = 1;; ++tick) {
    timespec left = kTick;
    while (nanosleep(&left, &left) != 0 && errno == EINTR) {
    }
    // Once a second: a trim request seen a second ago has waited that long.
    if (tick % kTicksPerSecond == 0) {
      if (trim_pending) m.pool->TrimIfWanted();
      trim_pending = m.pool->TrimRequested();
    }
    // Every tick while records wait for their views to be collected (the sweep reads 8 bytes per
    // record ever carved: 160 KB for 20,000).
    if (RecordsAwaitingViews() != 0) {
      ThreadState* state = CurrentThreadState();
      if (JNIEnv* jni = Jni(m); jni != nullptr && state != nullptr) {
        const uint64_t returned = SweepRecordViews(jni, *m.pool, state->cache);
        for (uint64_t i = 0; i < returned; ++i) Bump(state->counters.records_returned);
      }
    }
    if (tick % kWriterCheckTicks == 0) {
      CheckForOtherWriters(nullptr, nullptr);
      // Telling the shims needs JNI: attach only then.
      if (AttributesDisabled()) CheckForOtherWriters(Agent().jvmti, Jni(m));
    }
  }
  return nullptr;
}

bool Start(JavaVM* vm, RecordPool& pool) {
  pthread_attr_t attr;
  if (pthread_attr_init(&attr) != 0) return false;
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_attr_setstacksize(&attr, 256 * 1024);  // JNI calls when attached: HotSpot's minimum is
                                                 // well below this
  // No signal is for this thread until it is the JVM's: the JVM's handlers expect its own threads
  // (attaching it sets the JVM's own signal mask).
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  pthread_t thread;
  auto* m = new Maintenance{vm, &pool};  // lives as long as the thread: the process
  const bool ok = pthread_create(&thread, &attr, Loop, m) == 0;
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  pthread_attr_destroy(&attr);
  if (!ok) {
    delete m;
    return false;
  }
  pthread_setname_np(thread, "vtctx-maintenance");
  pool.EnableTrimRequests();
  return true;
}

}  // namespace

bool StartMaintenance(JavaVM* vm, RecordPool& pool) {
  static const bool started = Start(vm, pool);
  return started;
}

}  // namespace vtctx
