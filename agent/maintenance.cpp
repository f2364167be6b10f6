#include "maintenance.h"

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>

#include <cerrno>

#include "agentState.h"
#include "javaThreadIdentity.h"
#include "log.h"
#include "processContextInit.h"
#include "recordViews.h"
#include "systemProperty.h"
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
  bool refresh_properties;  // channel=identity at startup: the JVM's properties were not readable
  JNIEnv* jni = nullptr;    // once attached
};

// True once the JVM is completely created. HotSpot lets a thread attach while the VM is still
// being created (after Agent_OnLoad, before the system classes are ready); JNI_GetCreatedJavaVMs
// names the VM only once its creation is complete.
bool VmCreated() {
  using GetCreated = jint (*)(JavaVM**, jsize, jsize*);
  static auto get_created =
      reinterpret_cast<GetCreated>(dlsym(RTLD_DEFAULT, "JNI_GetCreatedJavaVMs"));
  JavaVM* vm = nullptr;
  jsize count = 0;
  return get_created != nullptr && get_created(&vm, 1, &count) == JNI_OK && count == 1;
}

// The JNI environment of this thread, attaching it as a daemon on first use; null if the JVM
// refuses (it is still starting, or shutting down): then the next tick tries again.
JNIEnv* Jni(Maintenance& m) {
  if (m.jni != nullptr) return m.jni;
  if (!VmCreated()) return nullptr;
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
    if (m.refresh_properties) {
      if (JNIEnv* jni = Jni(m)) {
        RefreshProcessContextResource(JniProperties(jni));
        m.refresh_properties = false;
        // At Agent_OnLoad no JNI version can be asked: the identity channel says here, once, that
        // it will publish nothing (CurrentJavaThreadIdentity refuses every thread).
        if (!HasJni21(jni)) {
          LogError(
              "this JVM (Java %s) has no JNI 21: virtual threads need JDK 21 or newer; the "
              "identity channel publishes nothing",
              JavaVersion(JniProperties(jni)).c_str());
        }
      }
    }
    // While records wait for their views to be collected, after each collection (only then can a
    // view have been): the sweep reads 8 bytes per record ever carved (160 KB for 20,000) and asks
    // the JVM about each waiting one.
    if (RecordsAwaitingViews() != 0) {
      ThreadState* state = CurrentThreadState();
      if (JNIEnv* jni = Jni(m); jni != nullptr && state != nullptr && CollectedSinceLastLook(jni)) {
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

bool Start(JavaVM* vm, RecordPool& pool, bool refresh_properties) {
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
  auto* m = new Maintenance{vm, &pool, refresh_properties};  // lives as long as the thread
  const bool ok = pthread_create(&thread, &attr, Loop, m) == 0;
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  pthread_attr_destroy(&attr);
  if (!ok) {
    delete m;
    return false;
  }
  // At most 15 characters (longer names are refused); the vtctx- prefix keeps the thread out of
  // vtctx-reader's profiles.
  pthread_setname_np(thread, "vtctx-maint");
  pool.EnableTrimRequests();
  return true;
}

}  // namespace

bool StartMaintenance(JavaVM* vm, RecordPool& pool, bool refresh_properties) {
  static const bool started = Start(vm, pool, refresh_properties);
  return started;
}

}  // namespace vtctx
