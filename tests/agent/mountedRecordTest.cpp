// A carrier's remembered record (mountedRecord.h): End recycles the ending thread's record without
// asking JVMTI when its Mount was seen, asks JVMTI otherwise, and never recycles another thread's.
#include <gtest/gtest.h>

#include "mountedRecord.h"

namespace vtctx {
namespace {

// A virtual thread's JVMTI thread-local storage, counting the Get calls (the JVMTI call the
// remembered record saves).
struct CountingBinding {
  void** slot;
  int* gets;
  void* Get() const {
    ++*gets;
    return *slot;
  }
  bool Set(void* p) const {
    *slot = p;
    return true;
  }
};

class MountedRecord : public ::testing::Test {
 protected:
  void SetUp() override { PublishOnThisThread(nullptr); }
  void TearDown() override { PublishOnThisThread(nullptr); }

  CountingBinding Jvmti(void** slot) { return CountingBinding{slot, &gets_}; }
  void Mount(void** slot, BindAt bind = BindAt::kFirstMount) {
    OnMountRemembering(Jvmti(slot), &carrier_, pool_, bind);
  }
  void Unmount() { OnUnmountRemembering(&carrier_); }
  // The record End is about to recycle, then End itself; returns the JVMTI Gets End made.
  int End(void** slot, void* expect_recycled) {
    EXPECT_EQ((RememberedBinding<CountingBinding>{{slot, &scratch_gets_}, &carrier_}.Get()),
              expect_recycled);
    const int before = gets_;
    OnVirtualThreadEndRemembered(Jvmti(slot), &carrier_, pool_);
    return gets_ - before;
  }
  static ThreadContextRecord* Live(void* record) {
    auto* r = static_cast<ThreadContextRecord*>(record);
    r->valid = 1;  // a live thread's context: recycling would zero it
    return r;
  }

  RecordPool pool_;
  ThreadState carrier_;
  int gets_ = 0;
  int scratch_gets_ = 0;
};

TEST_F(MountedRecord, EndAfterASeenMountAsksJvmtiNothing) {
  void* vt = nullptr;
  Mount(&vt);
  ThreadContextRecord* record = Live(vt);
  ASSERT_NE(record, nullptr);
  Unmount();
  EXPECT_EQ(End(&vt, record), 0);
  EXPECT_EQ(record->valid, 0);  // recycled
  EXPECT_EQ(carrier_.counters.records_returned.load(), 1u);
  EXPECT_EQ(carrier_.unmounted_record, nullptr);  // never handed out twice
}

TEST_F(MountedRecord, InterleavedThreadsEachRecycleTheirOwn) {
  void* a = nullptr;
  void* b = nullptr;
  Mount(&a);
  ThreadContextRecord* ra = Live(a);
  Unmount();
  Mount(&b);
  ThreadContextRecord* rb = Live(b);
  Unmount();
  Mount(&a);  // a resumes here and ends here; b stays parked
  Unmount();
  EXPECT_EQ(End(&a, ra), 0);
  EXPECT_EQ(ra->valid, 0);
  EXPECT_EQ(rb->valid, 1);  // b's record untouched
  Mount(&b);
  Unmount();
  EXPECT_EQ(End(&b, rb), 0);
  EXPECT_EQ(rb->valid, 0);
}

TEST_F(MountedRecord, PinnedRemountKeepsTheRecord) {
  void* vt = nullptr;
  Mount(&vt);
  ThreadContextRecord* record = Live(vt);
  Unmount();   // a failed (pinned) unmount attempt...
  Mount(&vt);  // ...and the remount that follows it
  Unmount();
  EXPECT_EQ(End(&vt, record), 0);
  EXPECT_EQ(record->valid, 0);
}

// Defensive End without a final Unmount (events enabled mid-transition at attach): the Mount in
// between forgot the previous thread's record, so End asks JVMTI and recycles its own.
TEST_F(MountedRecord, EndWithoutFinalUnmountAsksJvmti) {
  void* parked = nullptr;
  Mount(&parked);
  ThreadContextRecord* parked_record = Live(parked);
  Unmount();
  void* vt = nullptr;
  Mount(&vt);
  ThreadContextRecord* record = Live(vt);
  EXPECT_EQ(End(&vt, record), 1);
  EXPECT_EQ(record->valid, 0);
  EXPECT_EQ(parked_record->valid, 1);
}

// Late attach: a thread mounted before Mount was enabled ends here after a record was bound to it
// outside Mount (the shim's first use). Nothing was remembered for it: End asks JVMTI.
TEST_F(MountedRecord, ThreadWhoseMountWasNotSeenAsksJvmti) {
  void* seen = nullptr;
  Mount(&seen);
  ThreadContextRecord* seen_record = Live(seen);
  Unmount();  // it parks; the carrier then runs a thread whose Mount was not delivered
  void* unseen = Live(pool_.Take(carrier_.cache));  // bound by the shim, not by Mount
  Unmount();
  EXPECT_EQ(End(&unseen, unseen), 1);
  EXPECT_EQ(static_cast<ThreadContextRecord*>(unseen)->valid, 0);
  EXPECT_EQ(seen_record->valid, 1);  // the parked thread keeps its record
}

// bind=use: Mount binds nothing; the shim binds later; End asks JVMTI and recycles that record.
TEST_F(MountedRecord, BindOnUseRecordIsFoundThroughJvmti) {
  void* vt = nullptr;
  Mount(&vt, BindAt::kFirstUse);
  EXPECT_EQ(vt, nullptr);
  vt = Live(pool_.Take(carrier_.cache));  // the shim's first publish
  Unmount();
  EXPECT_EQ(End(&vt, vt), 1);
  EXPECT_EQ(static_cast<ThreadContextRecord*>(vt)->valid, 0);
}

// A thread that never got a record (bind=use, never published) ends harmlessly.
TEST_F(MountedRecord, ThreadWithoutRecordEndsUnpaired) {
  void* vt = nullptr;
  Mount(&vt, BindAt::kFirstUse);
  Unmount();
  EXPECT_EQ(End(&vt, nullptr), 1);
  EXPECT_EQ(carrier_.counters.ends_without_record.load(), 1u);
  EXPECT_EQ(carrier_.counters.records_returned.load(), 0u);
}

}  // namespace
}  // namespace vtctx
