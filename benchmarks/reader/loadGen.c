/* Load generator for the reader benchmark: N threads, each with its own published OTEP record
 * (through libctxfix_tlsdesc, TLSDESC static TLS like the agent), make write(2) calls of COUNT
 * bytes to /dev/null at an aggregate target rate (0 = as fast as possible) for S seconds.
 *
 *   loadGen --rate R --seconds S [--threads N] [--count B] [--spin]
 *
 * Prints {"event":"ready","pid":P}, waits for a line on stdin, runs, prints
 * {"event":"done","writes":W,"seconds":T}. With --spin the threads burn CPU instead (for profile
 * benchmarks) and "writes" counts loop iterations. Pacing uses absolute 1 ms ticks. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ctxLib.h"
#include "vtctx/record.h"

static double rate = 100000, seconds = 5;
static int nthreads = 2, count = 64, spin = 0;
static int devnull;
static volatile uint64_t spin_sink; /* keeps the spin work (see ctxfix_spin) */
static atomic_ulong total;
static ctxfix_publish_fn publish;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void* worker(void* arg) {
  static char buf[4096];
  struct vtctx_record_header* rec = aligned_alloc(64, 64);
  memset(rec, 0, 64);
  for (int i = 0; i < 16; i++) rec->trace_id[i] = (uint8_t)(i + 1);
  for (int i = 0; i < 8; i++) rec->span_id[i] = (uint8_t)((intptr_t)arg + 1);
  rec->trace_flags = 1;
  rec->valid = 1;
  publish(rec);
  const double per_tick = rate / nthreads / 1000.0; /* writes per 1 ms tick */
  const double end = now() + seconds;
  struct timespec tick;
  clock_gettime(CLOCK_MONOTONIC, &tick);
  double owed = 0;
  unsigned long done = 0;
  while (now() < end) {
    if (spin) {
      for (int i = 0; i < 100000; i++) spin_sink += (uint64_t)i * 2654435761u;
      done++;
      continue;
    }
    if (rate <= 0) {
      for (int i = 0; i < 1000; i++) done += write(devnull, buf, (size_t)count) >= 0;
      continue;
    }
    owed += per_tick;
    while (owed >= 1) {
      done += write(devnull, buf, (size_t)count) >= 0;
      owed -= 1;
    }
    tick.tv_nsec += 1000000;
    if (tick.tv_nsec >= 1000000000) {
      tick.tv_nsec -= 1000000000;
      tick.tv_sec++;
    }
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &tick, NULL);
  }
  atomic_fetch_add(&total, done);
  return NULL;
}

int main(int argc, char** argv) {
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--rate") && i + 1 < argc)
      rate = atof(argv[++i]);
    else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
      seconds = atof(argv[++i]);
    else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
      nthreads = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--count") && i + 1 < argc)
      count = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--spin"))
      spin = 1;
  }
  publish = (ctxfix_publish_fn)dlsym(RTLD_DEFAULT, "ctxfix_publish");
  devnull = open("/dev/null", O_WRONLY);
  if (publish == NULL || devnull < 0 || nthreads < 1 || count < 0 || count > 4096) {
    fprintf(stderr, "loadGen: bad setup or arguments\n");
    return 2;
  }
  printf("{\"event\":\"ready\",\"pid\":%d}\n", getpid());
  fflush(stdout);
  char line[16];
  if (fgets(line, sizeof line, stdin) == NULL) return 0;
  pthread_t t[64];
  if (nthreads > 64) nthreads = 64;
  const double start = now();
  for (int i = 0; i < nthreads; i++) pthread_create(&t[i], NULL, worker, (void*)(intptr_t)i);
  for (int i = 0; i < nthreads; i++) pthread_join(t[i], NULL);
  printf("{\"event\":\"done\",\"writes\":%lu,\"seconds\":%.3f}\n", atomic_load(&total),
         now() - start);
  fflush(stdout);
  return 0;
}
