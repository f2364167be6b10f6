// Ground truth for the demo, from the OS thread that runs the caller: its tid and its CPU time.
// Called from a virtual thread, both describe the CARRIER it is mounted on at that instant. The
// service records them around each request so the demo can (a) replay what a profiler without
// vtctx would attribute (tags kept per OS thread) and (b) compare sampled CPU with measured CPU.
#define _GNU_SOURCE  // gettid()
#include <jni.h>
#include <time.h>
#include <unistd.h>

JNIEXPORT jint JNICALL Java_io_vtctx_demo_OsThread_tid(JNIEnv* env, jclass cls) {
  (void)env;
  (void)cls;
  return (jint)gettid();
}

// CPU time of the calling OS thread. Between two calls with no blocking in between a virtual
// thread stays on one carrier (there is no preemption), so the difference is that stretch's CPU.
JNIEXPORT jlong JNICALL Java_io_vtctx_demo_OsThread_cpuNanos(JNIEnv* env, jclass cls) {
  (void)env;
  (void)cls;
  struct timespec ts;
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return -1;
  return (jlong)ts.tv_sec * 1000000000L + ts.tv_nsec;
}
