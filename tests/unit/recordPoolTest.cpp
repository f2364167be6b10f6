#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <set>
#include <thread>
#include <vector>

#include "recordPool.h"

namespace vtctx {
namespace {

bool IsZero(const ThreadContextRecord* r, size_t size) {
  const auto* b = reinterpret_cast<const uint8_t*>(r);
  for (size_t i = 0; i < size; ++i) {
    if (b[i] != 0) return false;
  }
  return true;
}

TEST(RecordPool, TakeGivesDistinctAlignedZeroedRecords) {
  RecordPool pool;
  ASSERT_TRUE(pool.ok());
  RecordCache cache;
  std::set<ThreadContextRecord*> seen;
  for (int i = 0; i < 1000; ++i) {
    ThreadContextRecord* r = pool.Take(cache);
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(r) % 64, 0u);
    EXPECT_TRUE(IsZero(r, 64));
    EXPECT_TRUE(pool.Owns(r));
    EXPECT_TRUE(seen.insert(r).second);
    std::memset(static_cast<void*>(r), 0xab, 64);
  }
  for (ThreadContextRecord* r : seen) pool.Return(cache, r);
  // Every record handed out again is zeroed, including ones that went through the shared stack.
  pool.Flush(cache);
  for (int i = 0; i < 1000; ++i) {
    ThreadContextRecord* r = pool.Take(cache);
    ASSERT_NE(r, nullptr);
    EXPECT_TRUE(IsZero(r, 64)) << "record " << i;
    EXPECT_EQ(seen.count(r), 1u);  // reused, not freshly carved
  }
  // Reuse comes before carving: no new records were carved for the second round.
  EXPECT_GE(pool.Stats().carved, 1000u);
  EXPECT_LT(pool.Stats().carved, 1000u + RecordCache::kBatch);
}

TEST(RecordPool, SlabsAreAlignedToTheirSize) {
  RecordPool pool;
  RecordCache cache;
  ThreadContextRecord* first = pool.Take(cache);
  // The first carved record starts the first slab.
  uintptr_t lowest = reinterpret_cast<uintptr_t>(first);
  for (uint32_t i = 1; i < RecordCache::kBatch; ++i) {
    lowest = std::min(lowest, reinterpret_cast<uintptr_t>(pool.Take(cache)));
  }
  EXPECT_EQ(lowest % RecordPool::kSlabBytes, 0u);
}

TEST(RecordPool, ReturnedRecordIsInvalidImmediately) {
  RecordPool pool;
  RecordCache cache;
  ThreadContextRecord* r = pool.Take(cache);
  r->valid = 1;
  r->trace_id[0] = 7;
  pool.Return(cache, r);
  EXPECT_EQ(r->valid, 0);
  EXPECT_TRUE(IsZero(r, 64));
}

TEST(RecordPool, LargeRecordsNeverStraddleSlabs) {
  RecordPool pool(640);
  ASSERT_EQ(pool.record_size(), 640u);
  RecordCache cache;
  const size_t per_slab = RecordPool::kSlabBytes / 640;
  std::vector<ThreadContextRecord*> records;
  for (size_t i = 0; i < per_slab * 2 + 5; ++i) {
    ThreadContextRecord* r = pool.Take(cache);
    ASSERT_NE(r, nullptr);
    const uintptr_t begin = reinterpret_cast<uintptr_t>(r);
    EXPECT_EQ(begin / RecordPool::kSlabBytes, (begin + 639) / RecordPool::kSlabBytes);
    EXPECT_TRUE(IsZero(r, 640));
    std::memset(static_cast<void*>(r), 0x5a, 640);  // would corrupt a neighbour if they overlapped
    records.push_back(r);
  }
  for (ThreadContextRecord* r : records) pool.Return(cache, r);
  pool.Flush(cache);
  for (size_t i = 0; i < records.size(); ++i) EXPECT_TRUE(IsZero(pool.Take(cache), 640));
  EXPECT_EQ(pool.Stats().slabs, 3u);
}

TEST(RecordPool, ExhaustionReturnsNullNotCrash) {
  RecordPool pool(64, RecordPool::kSlabBytes);  // one slab: 16384 records
  RecordCache cache;
  size_t got = 0;
  while (pool.Take(cache) != nullptr) ++got;
  EXPECT_EQ(got, RecordPool::kSlabBytes / 64);
  EXPECT_GT(pool.Stats().exhausted, 0u);
}

TEST(RecordPool, StatsTrackSlabsAndOutstanding) {
  RecordPool pool;
  RecordCache cache;
  std::vector<ThreadContextRecord*> taken;
  for (int i = 0; i < 20000; ++i) taken.push_back(pool.Take(cache));
  RecordPoolStats s = pool.Stats();
  EXPECT_EQ(s.slabs, 2u);  // 20000 records of 64 B need two 1 MiB slabs
  EXPECT_GE(s.outstanding, 20000u);
  EXPECT_GE(s.peak_outstanding, 20000u);
  EXPECT_EQ(cache.taken.load(), 20000u);
  for (ThreadContextRecord* r : taken) pool.Return(cache, r);
  pool.Flush(cache);
  s = pool.Stats();
  EXPECT_EQ(s.outstanding, 0u);
  EXPECT_GE(s.peak_outstanding, 20000u);
  EXPECT_EQ(cache.returned.load(), 20000u);
}

// Many threads take and return concurrently, and records migrate between threads (taken on one,
// returned on another, as a virtual thread's Start and End run on different carriers). An owner
// tag per record proves no record is ever handed to two holders at once.
TEST(RecordPool, ConcurrentTakeReturnNeverDoubleHandsOut) {
  RecordPool pool;
  constexpr int kThreads = 8;
  constexpr int kRounds = 20000;
  std::atomic<int> violations{0};
  std::vector<std::atomic<ThreadContextRecord*>> mailbox(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      RecordCache cache;
      std::vector<ThreadContextRecord*> held;
      for (int i = 0; i < kRounds; ++i) {
        ThreadContextRecord* r = pool.Take(cache);
        if (r == nullptr) {
          violations++;
          continue;
        }
        // Claim: a zeroed record must not already carry an owner mark.
        if (r->trace_id[0] != 0 || r->valid != 0) violations++;
        r->trace_id[0] = static_cast<uint8_t>(t + 1);
        r->span_id[0] = static_cast<uint8_t>(i);
        held.push_back(r);
        if (held.size() > 32) {
          ThreadContextRecord* old = held.front();
          held.erase(held.begin());
          if (old->trace_id[0] != t + 1) violations++;  // someone else wrote into our record
          // Hand every other record to the next thread to return (cross-thread return).
          if (i % 2 == 0) {
            ThreadContextRecord* prev = mailbox[(t + 1) % kThreads].exchange(old);
            if (prev != nullptr) pool.Return(cache, prev);
          } else {
            pool.Return(cache, old);
          }
          // Return what the previous thread handed to us.
          if (ThreadContextRecord* in = mailbox[t].exchange(nullptr)) pool.Return(cache, in);
        }
      }
      for (ThreadContextRecord* r : held) pool.Return(cache, r);
      pool.Flush(cache);
    });
  }
  for (auto& th : threads) th.join();
  RecordCache cache;
  for (auto& m : mailbox) {
    if (ThreadContextRecord* r = m.exchange(nullptr)) pool.Return(cache, r);
  }
  pool.Flush(cache);
  EXPECT_EQ(violations.load(), 0);
  EXPECT_EQ(pool.Stats().outstanding, 0u);
}

}  // namespace
}  // namespace vtctx
