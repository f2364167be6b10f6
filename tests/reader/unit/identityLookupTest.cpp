// The identity recipe followed on fake memory laid out as HotSpot and the agent's thread index lay
// it out: the mounted thread's record, and the confirmation after the record's reads, which must
// refuse a record that stopped being the mounted thread's and keep one whose Thread object a GC
// only moved (JDK 21-23's _vthread oop) or whose index entry a rebuild only copied.
#include <gtest/gtest.h>

#include "fakeMemory.h"
#include "target/identityLookup.h"
#include "vtctx/threadIndex.h"

namespace vtctx::reader {
namespace {

constexpr uint64_t kThreadPointer = 0x10000;
constexpr int64_t kThreadSlotOffset = -16;  // libjvm's Thread::_thr_current, static TLS
constexpr uint64_t kJavaThread = 0x20000;
constexpr uint64_t kJniFunctions = 0xabc000;
constexpr uint64_t kHandle = 0x30000;  // JavaThread::_vthread's OopHandle
constexpr uint64_t kThreadObject = 0x40000;
constexpr uint64_t kMovedThreadObject = 0x38000;
constexpr uint64_t kIndex = 0x50000;
constexpr uint64_t kTable = 0x60000;
constexpr uint64_t kRecord = 0x70000;
constexpr uint64_t kOtherRecord = 0x71000;
constexpr uint64_t kThreadId = 42;
constexpr uint64_t kOtherThreadId = 43;
constexpr uint32_t kShift = 54;  // capacity 1024

vtctx_identity_recipe Recipe(vtctx_identity_kind kind) {
  vtctx_identity_recipe r{};
  r.kind = kind;
  r.thread_slot.kind = VTCTX_SLOT_STATIC;
  r.thread_slot.tp_offset = kThreadSlotOffset;
  r.java_thread_word_offset = 0x100;
  r.java_thread_word = kJniFunctions;
  r.owner_id_offset = 0x180;
  r.vthread_offset = 0x200;
  r.tid_offset = 0x50;
  r.index = kIndex;
  return r;
}

class IdentityLookup : public ::testing::Test {
 protected:
  void SetUp() override {
    mem_.PutU64(kThreadPointer + kThreadSlotOffset, kJavaThread);
    mem_.PutU64(kJavaThread + recipe_.java_thread_word_offset, kJniFunctions);
    mem_.PutU64(kJavaThread + recipe_.owner_id_offset, kThreadId);
    mem_.PutU64(kJavaThread + recipe_.vthread_offset, kHandle);
    mem_.PutU64(kHandle, kThreadObject);
    mem_.PutU64(kThreadObject + recipe_.tid_offset, kThreadId);
    vtctx_index_header header{VTCTX_INDEX_MAGIC, VTCTX_INDEX_LAYOUT, 0, kTable, 1};
    mem_.Put(kIndex, &header, sizeof header);
    vtctx_index_table_header table{1024, kShift, 2};
    mem_.Put(kTable, &table, sizeof table);
    PutEntry(kThreadId, kRecord);
    PutEntry(kOtherThreadId, kOtherRecord);
  }

  // At the entry where a lookup of `home_of` starts.
  void PutEntry(uint64_t id, uint64_t record, uint64_t table = kTable, uint64_t home_of = 0) {
    const uint64_t home = vtctx_index_home(home_of != 0 ? home_of : id, kShift);
    vtctx_index_entry entry{id, record};
    mem_.Put(table + VTCTX_INDEX_TABLE_HEADER_SIZE + home * VTCTX_INDEX_ENTRY_SIZE, &entry,
             sizeof entry);
  }

  // The writer's rebuild: a new table at `table`, published with one store to header.table.
  void PublishTable(uint64_t table) {
    vtctx_index_table_header head{1024, kShift, 2};
    mem_.Put(table, &head, sizeof head);
    mem_.PutU64(kIndex + VTCTX_INDEX_OFFSET_TABLE, table);
  }

  // The Thread object of another virtual thread at `at`.
  void PutThreadObject(uint64_t at, uint64_t id) { mem_.PutU64(at + recipe_.tid_offset, id); }

  // The confirmation of `follow` once _vthread's handle names a Thread object with `id` at `at`.
  bool ConfirmedAfterHandleMoved(const IdentityFollow& follow, uint64_t at, uint64_t id) {
    PutThreadObject(at, id);
    mem_.PutU64(kHandle, at);
    return ConfirmIdentity(recipe_, follow, mem_);
  }

  vtctx_identity_recipe recipe_ = Recipe(VTCTX_IDENTITY_VTHREAD_OOP);
  FakeMemory mem_;
};

TEST_F(IdentityLookup, MountedThreadsRecordThroughVthreadOop) {
  const IdentityFollow follow = FollowIdentity(recipe_, kThreadPointer, mem_);
  ASSERT_EQ(follow.status, VTCTX_CTX_OK) << follow.note;
  EXPECT_EQ(follow.java_thread_id, kThreadId);
  EXPECT_EQ(follow.record, kRecord);
  EXPECT_TRUE(ConfirmIdentity(recipe_, follow, mem_));
}

TEST_F(IdentityLookup, MountedThreadsRecordThroughOwnerId) {
  recipe_ = Recipe(VTCTX_IDENTITY_OWNER_ID);
  mem_.PutU64(kJavaThread + recipe_.owner_id_offset, kOtherThreadId);
  const IdentityFollow follow = FollowIdentity(recipe_, kThreadPointer, mem_);
  ASSERT_EQ(follow.status, VTCTX_CTX_OK) << follow.note;
  EXPECT_EQ(follow.record, kOtherRecord);
  EXPECT_TRUE(ConfirmIdentity(recipe_, follow, mem_));
}

TEST_F(IdentityLookup, NoJavaThreadWithoutTheJvmsJniTable) {
  mem_.PutU64(kJavaThread + recipe_.java_thread_word_offset,
              kJniFunctions + 8);  // a GC or VM thread
  EXPECT_EQ(FollowIdentity(recipe_, kThreadPointer, mem_).status, VTCTX_CTX_NO_JAVA_THREAD);
}

// A GC moved the Thread object between the reads: the handle names the copy, which has the same
// id (the old rule, "the handle still names the same oop", refused it).
TEST_F(IdentityLookup, ThreadObjectMovedByGcIsStillTheMountedThread) {
  const IdentityFollow follow = FollowIdentity(recipe_, kThreadPointer, mem_);
  ASSERT_EQ(follow.status, VTCTX_CTX_OK);
  EXPECT_TRUE(ConfirmedAfterHandleMoved(follow, kMovedThreadObject, kThreadId));
}

// Another virtual thread mounted between the reads.
TEST_F(IdentityLookup, AnotherThreadMountedIsRefused) {
  const IdentityFollow follow = FollowIdentity(recipe_, kThreadPointer, mem_);
  ASSERT_EQ(follow.status, VTCTX_CTX_OK);
  EXPECT_FALSE(ConfirmedAfterHandleMoved(follow, 0x48000, kOtherThreadId));
}

// A sliding compaction updated the handle before moving the object: the new address still holds
// another object (its bytes at the tid offset are not the id), or nothing readable.
TEST_F(IdentityLookup, HandleNamingAnObjectNotMovedYetIsRefused) {
  const IdentityFollow follow = FollowIdentity(recipe_, kThreadPointer, mem_);
  ASSERT_EQ(follow.status, VTCTX_CTX_OK);
  mem_.PutU64(kHandle, 0x90000);  // unreadable
  EXPECT_FALSE(ConfirmIdentity(recipe_, follow, mem_));
  EXPECT_FALSE(ConfirmedAfterHandleMoved(follow, kMovedThreadObject, 0x0123456789));
  mem_.PutU64(kHandle, 0);  // unmounted
  EXPECT_FALSE(ConfirmIdentity(recipe_, follow, mem_));
}

// The id read at the old address after another Thread object slid there names another record:
// the handle, updated, names our object with our id, which is not the id the record was found by.
TEST_F(IdentityLookup, IdReadWhereAnotherObjectSlidInIsRefused) {
  PutThreadObject(kThreadObject, kOtherThreadId);  // the old address, overwritten
  const IdentityFollow follow = FollowIdentity(recipe_, kThreadPointer, mem_);
  ASSERT_EQ(follow.status, VTCTX_CTX_OK);
  ASSERT_EQ(follow.record, kOtherRecord);
  EXPECT_FALSE(ConfirmedAfterHandleMoved(follow, kMovedThreadObject, kThreadId));
}

TEST_F(IdentityLookup, IndexEntryChangedIsRefused) {
  const IdentityFollow follow = FollowIdentity(recipe_, kThreadPointer, mem_);
  ASSERT_EQ(follow.status, VTCTX_CTX_OK);
  PutEntry(kThreadId, kOtherRecord);  // the record went back to the pool and was handed out
  EXPECT_FALSE(ConfirmIdentity(recipe_, follow, mem_));
}

// Threads came and went between the reads and the writer rebuilt the index (the failure
// reader.jvm_vthreads_identity_java21 once showed in CI: a marker read as "changed"): the new
// table still maps the thread to its record.
TEST_F(IdentityLookup, IndexRebuiltWithTheSameEntryIsStillTheThreadsRecord) {
  const IdentityFollow follow = FollowIdentity(recipe_, kThreadPointer, mem_);
  ASSERT_EQ(follow.status, VTCTX_CTX_OK);
  constexpr uint64_t kNewTable = 0x64000;
  PublishTable(kNewTable);
  PutEntry(kThreadId, kRecord, kNewTable);
  EXPECT_TRUE(ConfirmIdentity(recipe_, follow, mem_));
}

TEST_F(IdentityLookup, IndexRebuiltWithoutTheThreadOrWithAnotherRecordIsRefused) {
  const IdentityFollow follow = FollowIdentity(recipe_, kThreadPointer, mem_);
  ASSERT_EQ(follow.status, VTCTX_CTX_OK);
  constexpr uint64_t kNewTable = 0x64000;
  PublishTable(kNewTable);  // the thread ended: its home entry is empty
  PutEntry(VTCTX_INDEX_EMPTY, 0, kNewTable, kThreadId);
  EXPECT_FALSE(ConfirmIdentity(recipe_, follow, mem_));
  PutEntry(kThreadId, kOtherRecord, kNewTable);
  EXPECT_FALSE(ConfirmIdentity(recipe_, follow, mem_));
  mem_.PutU64(kIndex + VTCTX_INDEX_OFFSET_TABLE, 0x98000);  // an unreadable table
  EXPECT_FALSE(ConfirmIdentity(recipe_, follow, mem_));
}

}  // namespace
}  // namespace vtctx::reader
