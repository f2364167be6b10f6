/* Another OTEP 4947 writer loaded into a JVM after vtctx (jvm.other_writer): with ctxLib.c it
 * defines otel_thread_ctx_v1, and when loaded it maps an OTEP 4719 process context of its own (a
 * memfd named OTEL_CTX, as vtctx's publisher makes it where anonymous mappings cannot be named),
 * as Datadog's java-profiler does. */
#define _GNU_SOURCE
#include <stddef.h>
#include <sys/mman.h>
#include <unistd.h>

__attribute__((constructor)) static void PublishOtherContext(void) {
  const int fd = memfd_create("OTEL_CTX", MFD_CLOEXEC);
  if (fd < 0 || ftruncate(fd, 4096) != 0) return;
  void* page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (page != MAP_FAILED) ((char*)page)[0] = 'O';
}
