// A native call chain built without frame pointers (-fomit-frame-pointer, as distributions build
// most libraries), for StackWorkloads' "native" workload: a sample in vtctx_burn_inner has
// vtctx_burn_middle, vtctx_burn_outer and the JNI function between it and the Java caller, which
// only the file's call-frame information (.eh_frame) finds; the frame-pointer chain skips them.
// Each function does work after its call (not a tail call) and keeps its own frame.
#include <jni.h>
#include <stdint.h>

#define NOINLINE __attribute__((noinline, visibility("default")))

NOINLINE uint64_t vtctx_burn_inner(uint64_t x, int rounds) {
  volatile uint64_t acc = x;
  for (int i = 0; i < rounds; i++) acc = acc * 6364136223846793005ULL + 1442695040888963407ULL;
  return acc;
}

NOINLINE uint64_t vtctx_burn_middle(uint64_t x, int rounds) {
  volatile uint64_t spill[4] = {x, x + 1, x + 2, x + 3};  // a frame of its own
  uint64_t r = vtctx_burn_inner(spill[x & 3], rounds);
  return r ^ spill[(x + 1) & 3];
}

NOINLINE uint64_t vtctx_burn_outer(uint64_t x, int rounds) {
  volatile uint64_t spill[6] = {x, x * 3, x * 5, x * 7, x * 11, x * 13};
  uint64_t r = vtctx_burn_middle(spill[x % 6], rounds);
  return r + spill[(x + 2) % 6];
}

JNIEXPORT jlong JNICALL Java_StackWorkloads_nativeBurn(JNIEnv* env, jclass cls, jlong x) {
  (void)env;
  (void)cls;
  return (jlong)vtctx_burn_outer((uint64_t)x, 20000);
}
