// Control for scripts/interop.sh (main-noprctl-* scenarios), LD_PRELOADed into the JVM:
// prctl(PR_SET_VMA, ...) fails with EINVAL without entering the kernel, so a profiler that hooks
// that syscall (the OpenTelemetry eBPF profiler since its #1399) never sees the agent's call.
// Every other prctl goes to the kernel unchanged.
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PR_SET_VMA_OPTION 0x53564d41

int prctl(int option, ...) {
  va_list ap;
  va_start(ap, option);
  const unsigned long a2 = va_arg(ap, unsigned long), a3 = va_arg(ap, unsigned long),
                      a4 = va_arg(ap, unsigned long), a5 = va_arg(ap, unsigned long);
  va_end(ap);
  if (option == PR_SET_VMA_OPTION) {
    errno = EINVAL;
    return -1;
  }
  return (int)syscall(SYS_prctl, option, a2, a3, a4, a5);
}
