package io.vtctx.demo;

/**
 * The OS thread under the caller (for a virtual thread: its current carrier), from the demo's JNI
 * helper {@code libvtctx_demo_native.so}. Only the demo's ground truth uses it; the service's
 * request handling does not depend on it.
 */
final class OsThread {
  static {
    System.loadLibrary("vtctx_demo_native");
  }

  private OsThread() {}

  /** gettid() of the calling OS thread. */
  static native int tid();

  /** CLOCK_THREAD_CPUTIME_ID of the calling OS thread, in ns. */
  static native long cpuNanos();
}
