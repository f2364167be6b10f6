// VTCTX_THIS_THREAD_SLOT, the one access to otel_thread_ctx_v1, against the compiler's own access
// to the variable, on several threads. With GCC (or clang >= 19) both are the compiler's TLSDESC
// code; with a compiler that lacks -mtls-dialect=gnu2 VTCTX_THIS_THREAD_SLOT is the asm sequence of
// vtctx/tlsdescAddress.h (relaxed to local-exec by the linker here, in an executable; in
// libvtctx.so it calls the resolver: tests abi.exports and jvm.carrier_tls check that).
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "otelThreadContext.h"

namespace vtctx {
namespace {

// The compiler's own access (its default dialect when it has no gnu2), not VTCTX_THIS_THREAD_SLOT.
void** CompilerSlot() { return &otel_thread_ctx_v1; }

TEST(OtelThreadContext, SlotIsThisThreadsVariable) {
  ASSERT_EQ(&VTCTX_THIS_THREAD_SLOT, CompilerSlot());
  ThreadContextRecord record{};
  PublishOnThisThread(&record);
  EXPECT_EQ(otel_thread_ctx_v1, &record);
  EXPECT_EQ(PublishedOnThisThread(), &record);
  otel_thread_ctx_v1 = nullptr;
  EXPECT_EQ(PublishedOnThisThread(), nullptr);
}

TEST(OtelThreadContext, EachThreadHasItsOwnSlot) {
  constexpr int kThreads = 4;
  std::vector<ThreadContextRecord> records(kThreads);
  std::vector<void**> slots(kThreads, nullptr), compiler_slots(kThreads, nullptr);
  std::vector<void*> seen(kThreads, nullptr);
  PublishOnThisThread(nullptr);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      slots[i] = &VTCTX_THIS_THREAD_SLOT;
      compiler_slots[i] = CompilerSlot();
      PublishOnThisThread(&records[i]);
      seen[i] = *compiler_slots[i];
    });
  }
  for (auto& t : threads) t.join();
  for (int i = 0; i < kThreads; ++i) {
    EXPECT_EQ(slots[i], compiler_slots[i]) << "thread " << i;
    EXPECT_EQ(seen[i], &records[i]) << "thread " << i;
    EXPECT_NE(slots[i], &VTCTX_THIS_THREAD_SLOT) << "thread " << i;
  }
  EXPECT_EQ(PublishedOnThisThread(), nullptr);  // no other thread's store reached this one
}

}  // namespace
}  // namespace vtctx
