// The agent's event logic without a JVM: a fake JVMTI thread-local storage per thread, the real
// otel_thread_ctx_v1 of the test thread standing in for the carrier's.
#include <gtest/gtest.h>

#include <vector>

#include "handlerBodies.h"

namespace vtctx {
namespace {

struct FakeBinding {
  void** slot;
  bool fail_set = false;
  void* Get() const { return *slot; }
  bool Set(void* p) const {
    if (fail_set) return false;
    *slot = p;
    return true;
  }
};

class HandlerBodies : public ::testing::Test {
 protected:
  void SetUp() override {
    PublishOnThisThread(nullptr);
    OnThreadStartBody(FakeBinding{&carrier_tls_}, &carrier_, pool_, false);  // the carrier itself
    own_ = carrier_.own;
    ASSERT_NE(own_, nullptr);
    ASSERT_EQ(PublishedOnThisThread(), own_);
  }
  void TearDown() override { PublishOnThisThread(nullptr); }

  ThreadContextRecord* Published() { return PublishedOnThisThread(); }

  RecordPool pool_;
  ThreadState carrier_;  // the carrier OS thread's agent state
  void* carrier_tls_ = nullptr;
  ThreadContextRecord* own_ = nullptr;
};

TEST_F(HandlerBodies, MountPublishesUnmountRestoresOwnEndRecycles) {
  void* vt = nullptr;  // the virtual thread's JVMTI TLS
  OnMountBody(FakeBinding{&vt}, &carrier_, pool_, BindAt::kFirstMount);
  auto* record = static_cast<ThreadContextRecord*>(vt);
  ASSERT_NE(record, nullptr);
  EXPECT_EQ(Published(), record);
  record->valid = 1;  // the thread writes a context

  OnUnmountBody(&carrier_);
  EXPECT_EQ(Published(), own_);  // never the unmounted thread's record

  OnMountBody(FakeBinding{&vt}, &carrier_, pool_, BindAt::kFirstMount);
  EXPECT_EQ(vt, record);  // same record for the thread's whole life
  EXPECT_EQ(Published(), record);
  EXPECT_EQ(record->valid, 1);  // its context survived the remount

  OnUnmountBody(&carrier_);
  OnVirtualThreadEndBody(FakeBinding{&vt}, &carrier_, pool_);
  EXPECT_EQ(Published(), own_);
  EXPECT_EQ(record->valid, 0);  // recycled records are zeroed
  const EventCounters& c = carrier_.counters;
  EXPECT_EQ(c.mounts.load(), 2u);
  EXPECT_EQ(c.unmounts.load(), 2u);
  EXPECT_EQ(c.records_created_virtual.load(), 1u);
  EXPECT_EQ(c.records_returned.load(), 1u);
  EXPECT_EQ(c.unpaired_mounts.load() + c.unpaired_unmounts.load() + c.ends_without_record.load(),
            0u);
  // The recycled record is the next one handed out.
  void* next = nullptr;
  OnMountBody(FakeBinding{&next}, &carrier_, pool_, BindAt::kFirstMount);
  EXPECT_EQ(next, record);
}

TEST_F(HandlerBodies, InterleavedThreadsOnOneCarrier) {
  void* a = nullptr;
  void* b = nullptr;
  OnMountBody(FakeBinding{&a}, &carrier_, pool_, BindAt::kFirstMount);
  OnUnmountBody(&carrier_);
  OnMountBody(FakeBinding{&b}, &carrier_, pool_, BindAt::kFirstMount);
  ASSERT_NE(a, b);
  EXPECT_EQ(Published(), b);
  OnUnmountBody(&carrier_);
  OnMountBody(FakeBinding{&a}, &carrier_, pool_, BindAt::kFirstMount);
  EXPECT_EQ(Published(), a);
}

TEST_F(HandlerBodies, LateAttachUnpairedEventsAreHarmless) {
  void* running_at_attach = nullptr;  // never got a Mount
  OnUnmountBody(&carrier_);
  EXPECT_EQ(Published(), own_);
  EXPECT_EQ(carrier_.counters.unpaired_unmounts.load(), 1u);
  OnVirtualThreadEndBody(FakeBinding{&running_at_attach}, &carrier_, pool_);
  EXPECT_EQ(carrier_.counters.ends_without_record.load(), 1u);
  EXPECT_EQ(Published(), own_);
  // Its first Mount after the attach binds a record lazily.
  void* parked_at_attach = nullptr;
  OnMountBody(FakeBinding{&parked_at_attach}, &carrier_, pool_, BindAt::kStart);
  EXPECT_NE(parked_at_attach, nullptr);
  EXPECT_EQ(Published(), parked_at_attach);
  EXPECT_EQ(carrier_.counters.records_lazily_created.load(), 1u);
  // A second Mount without Unmount in between is counted, and still publishes the new thread.
  void* other = nullptr;
  OnMountBody(FakeBinding{&other}, &carrier_, pool_, BindAt::kFirstMount);
  EXPECT_EQ(Published(), other);
  EXPECT_EQ(carrier_.counters.unpaired_mounts.load(), 1u);
}

TEST_F(HandlerBodies, EndWithoutFinalUnmountStillUnpublishes) {
  void* vt = nullptr;
  OnMountBody(FakeBinding{&vt}, &carrier_, pool_, BindAt::kFirstMount);
  EXPECT_EQ(Published(), vt);
  OnVirtualThreadEndBody(FakeBinding{&vt}, &carrier_, pool_);
  EXPECT_EQ(Published(), own_);
  EXPECT_FALSE(carrier_.vthread_mounted);
}

TEST_F(HandlerBodies, BindAtStartReusesTheStartRecord) {
  void* vt = nullptr;
  OnVirtualThreadStartBody(FakeBinding{&vt}, &carrier_, pool_);
  void* at_start = vt;
  ASSERT_NE(at_start, nullptr);
  OnMountBody(FakeBinding{&vt}, &carrier_, pool_, BindAt::kStart);
  EXPECT_EQ(vt, at_start);
  EXPECT_EQ(Published(), at_start);
  EXPECT_EQ(carrier_.counters.records_created_virtual.load(), 1u);
  EXPECT_EQ(carrier_.counters.records_lazily_created.load(), 0u);
}

// The test-only fault reproduces the failure the correctness harness must catch: after a second
// thread's first mount, a remount of the first thread leaves the carrier on the wrong record.
TEST_F(HandlerBodies, StaleCarrierFaultPublishesTheWrongRecord) {
  void* a = nullptr;
  void* b = nullptr;
  OnMountBody<true>(FakeBinding{&a}, &carrier_, pool_, BindAt::kFirstMount);
  EXPECT_EQ(Published(), a);
  OnUnmountBody<true>(&carrier_);
  EXPECT_EQ(Published(), a);  // not cleared
  OnMountBody<true>(FakeBinding{&b}, &carrier_, pool_, BindAt::kFirstMount);
  OnUnmountBody<true>(&carrier_);
  OnMountBody<true>(FakeBinding{&a}, &carrier_, pool_, BindAt::kFirstMount);
  EXPECT_EQ(Published(), b);  // a runs, b's record is published: misattribution
}

TEST_F(HandlerBodies, PlatformThreadEndUnpublishesAndRecycles) {
  ThreadContextRecord* own = carrier_.own;
  OnThreadEndBody(FakeBinding{&carrier_tls_}, &carrier_, pool_);
  EXPECT_EQ(Published(), nullptr);
  EXPECT_EQ(carrier_tls_, nullptr);
  EXPECT_EQ(carrier_.own, nullptr);
  EXPECT_EQ(carrier_.counters.records_returned.load(), 1u);
  EXPECT_EQ(own->valid, 0);
}

TEST_F(HandlerBodies, NoRecordAvailableMeansPublishNothing) {
  RecordPool tiny(64, RecordPool::kSlabBytes);
  ThreadState state;
  std::vector<ThreadContextRecord*> hoard;
  while (ThreadContextRecord* r = tiny.Take(state.cache)) hoard.push_back(r);
  void* vt = nullptr;
  OnMountBody(FakeBinding{&vt}, &state, tiny, BindAt::kFirstMount);
  EXPECT_EQ(vt, nullptr);
  EXPECT_EQ(Published(), nullptr);  // incomplete, never wrong
  EXPECT_EQ(state.counters.records_unavailable.load(), 1u);
  OnUnmountBody(&state);
  EXPECT_EQ(Published(), nullptr);
}

TEST_F(HandlerBodies, FailedBindingGivesTheRecordBack) {
  void* vt = nullptr;
  const uint64_t before = carrier_.cache.taken.load() - carrier_.cache.returned.load();
  OnMountBody(FakeBinding{&vt, /*fail_set=*/true}, &carrier_, pool_, BindAt::kFirstMount);
  EXPECT_EQ(vt, nullptr);
  EXPECT_EQ(Published(), nullptr);
  EXPECT_EQ(carrier_.cache.taken.load() - carrier_.cache.returned.load(), before);
}

// bind=use: a thread that has not published gets no record and no binding at Mount; its carrier
// publishes NULL for it (never another thread's record), and its End is harmless.
TEST_F(HandlerBodies, BindOnUseLeavesUnpublishedThreadsUnbound) {
  void* vt = nullptr;
  OnMountBody(FakeBinding{&vt}, &carrier_, pool_, BindAt::kFirstUse);
  EXPECT_EQ(vt, nullptr);
  EXPECT_EQ(Published(), nullptr);
  EXPECT_EQ(carrier_.counters.records_created_virtual.load(), 0u);
  OnUnmountBody(&carrier_);
  EXPECT_EQ(Published(), own_);
  EXPECT_EQ(carrier_.counters.unpaired_unmounts.load(), 0u);  // a paired Mount/Unmount
  // Once bound (by the shim's first use), later mounts publish its record.
  void* record = pool_.Take(carrier_.cache);
  vt = record;
  OnMountBody(FakeBinding{&vt}, &carrier_, pool_, BindAt::kFirstUse);
  EXPECT_EQ(Published(), record);
  OnUnmountBody(&carrier_);
  void* never_published = nullptr;
  OnVirtualThreadEndBody(FakeBinding{&never_published}, &carrier_, pool_);
  EXPECT_EQ(carrier_.counters.ends_without_record.load(), 1u);
  EXPECT_EQ(Published(), own_);
}

}  // namespace
}  // namespace vtctx
