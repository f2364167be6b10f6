// The in-place writer: field effects, and the ordering guarantee checked the way real readers
// look at a record: from a signal that interrupts the writing thread at arbitrary points.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

#include "recordWriter.h"

namespace vtctx {
namespace {

TEST(RecordWriter, WriteSetsIdsFlagsAndValid) {
  ThreadContextRecord r{};
  const uint8_t trace[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  const uint8_t span[8] = {21, 22, 23, 24, 25, 26, 27, 28};
  r.attrs_data_size = 3;  // attributes belong to the thread: a span change keeps them
  WriteTraceContext(&r, trace, span, 0x01);
  EXPECT_EQ(std::memcmp(r.trace_id, trace, 16), 0);
  EXPECT_EQ(std::memcmp(r.span_id, span, 8), 0);
  EXPECT_EQ(r.trace_flags, 0x01);
  EXPECT_EQ(r.valid, 1);
  EXPECT_EQ(r.attrs_data_size, 3);
}

TEST(RecordWriter, ClearLeavesInvalidAndZero) {
  ThreadContextRecord r{};
  const uint8_t trace[16] = {9};
  const uint8_t span[8] = {9};
  WriteTraceContext(&r, trace, span, 1);
  ClearTraceContext(&r);
  ThreadContextRecord zero{};
  EXPECT_EQ(r.valid, 0);
  EXPECT_EQ(std::memcmp(&r, &zero, 28), 0);
}

TEST(RecordWriter, PayloadReturningFalseLeavesInvalid) {
  ThreadContextRecord r{};
  r.valid = 1;
  RewriteInPlace(&r, [](ThreadContextRecord& rec) {
    rec.trace_flags = 7;
    return false;
  });
  EXPECT_EQ(r.valid, 0);
  EXPECT_EQ(r.trace_flags, 7);
}

// A timer signal targeted at the writer thread samples the record mid-rewrite, like an eBPF
// program at a perf sample. Each write sets every id byte to the same value k, so a valid record
// with mixed bytes would be a torn read that the protocol must prevent.
timespec Now() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t;
}
double SecondsSince(const timespec& start) {
  const timespec now = Now();
  return static_cast<double>(now.tv_sec - start.tv_sec) + (now.tv_nsec - start.tv_nsec) / 1e9;
}

ThreadContextRecord g_record;
std::atomic<uint64_t> g_samples{0}, g_valid_samples{0}, g_torn{0};

void Sample(int) {
  const ThreadContextRecord snapshot = g_record;  // the handler interrupts the writer
  g_samples.fetch_add(1, std::memory_order_relaxed);
  if (snapshot.valid != 1) return;
  g_valid_samples.fetch_add(1, std::memory_order_relaxed);
  const uint8_t k = snapshot.trace_id[0];
  bool torn = snapshot.trace_flags != k;
  for (uint8_t b : snapshot.trace_id) torn |= b != k;
  for (uint8_t b : snapshot.span_id) torn |= b != k;
  if (torn) g_torn.fetch_add(1, std::memory_order_relaxed);
}

TEST(RecordWriter, InterruptingReaderNeverSeesTornValidRecord) {
  struct sigaction sa {};
  sa.sa_handler = Sample;
  sigemptyset(&sa.sa_mask);
  ASSERT_EQ(sigaction(SIGRTMIN, &sa, nullptr), 0);
  sigevent sev{};
  sev.sigev_notify = SIGEV_THREAD_ID;
  sev.sigev_signo = SIGRTMIN;
  sev._sigev_un._tid = static_cast<pid_t>(syscall(SYS_gettid));  // glibc 2.36 has no accessor macro
  timer_t timer;
  ASSERT_EQ(timer_create(CLOCK_MONOTONIC, &sev, &timer), 0);  // high-resolution, unlike CPU clocks
  itimerspec every{{0, 20'000}, {0, 20'000}};                 // every 20 us
  ASSERT_EQ(timer_settime(timer, 0, &every, nullptr), 0);

  uint8_t trace[16], span[8];
  const timespec start = Now();
  for (uint32_t i = 0; g_samples.load() < 20'000 && SecondsSince(start) < 10; ++i) {
    const uint8_t k = static_cast<uint8_t>(i);
    std::memset(trace, k, sizeof trace);
    std::memset(span, k, sizeof span);
    WriteTraceContext(&g_record, trace, span, k);
  }
  timer_delete(timer);
  signal(SIGRTMIN, SIG_DFL);
  EXPECT_GE(g_samples.load(), 20'000u);
  EXPECT_GT(g_valid_samples.load(), 0u);
  EXPECT_EQ(g_torn.load(), 0u);
}

// OTEP 4947: both ids must be set. Half a context clears the record (flags 0 too).
TEST(RecordWriter, HalfAContextClears) {
  ThreadContextRecord r{};
  const uint8_t trace[16] = {1, 2, 3};
  const uint8_t span[8] = {4, 5, 6};
  const uint8_t zero_trace[16] = {};
  const uint8_t zero_span[8] = {};
  WriteTraceContext(&r, trace, span, 1);
  ASSERT_EQ(r.valid, VTCTX_RECORD_VALID);
  WriteTraceContext(&r, zero_trace, span, 1);
  EXPECT_EQ(r.valid, VTCTX_RECORD_INVALID);
  EXPECT_EQ(r.trace_flags, 0);
  EXPECT_EQ(r.span_id[0], 0);
  WriteTraceContext(&r, trace, span, 1);
  WriteTraceContext(&r, trace, zero_span, 1);
  EXPECT_EQ(r.valid, VTCTX_RECORD_INVALID);
  EXPECT_EQ(r.trace_flags, 0);
  EXPECT_EQ(r.trace_id[0], 0);
}

}  // namespace
}  // namespace vtctx
