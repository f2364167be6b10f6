#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <map>
#include <set>
#include <thread>
#include <vector>

#include "recordPool.h"

namespace vtctx {
namespace {

const size_t kPage = static_cast<size_t>(sysconf(_SC_PAGESIZE));

// What backs a page, from /proc/self/pagemap: nothing (a BPF read faults), the shared zero page
// (reads as zeroes, not in RSS) or a private page (written: in RSS).
enum class Backing { kNone, kZeroPage, kPrivate };
const char* Name(Backing b) {
  return b == Backing::kNone ? "none" : b == Backing::kZeroPage ? "zero page" : "private";
}
void PrintTo(Backing b, std::ostream* os) { *os << Name(b); }
Backing BackingOf(const void* p) {
  const int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  uint64_t entry = 0;
  const off_t at = static_cast<off_t>(reinterpret_cast<uintptr_t>(p) / kPage * sizeof entry);
  const bool ok = fd >= 0 && pread(fd, &entry, sizeof entry, at) == sizeof entry;
  if (fd >= 0) close(fd);
  EXPECT_TRUE(ok) << "cannot read /proc/self/pagemap";
  if (!(entry >> 63 & 1)) return Backing::kNone;
  return (entry >> 56 & 1) ? Backing::kPrivate : Backing::kZeroPage;
}
uintptr_t PageOf(const void* p) { return reinterpret_cast<uintptr_t>(p) / kPage; }

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

// A BPF reader cannot fault pages in: a taken record must be on a present page even if nobody
// ever writes it, and that page must not cost memory (the zero page).
TEST(RecordPool, TakenRecordIsOnAPresentCleanPage) {
  RecordPool pool;
  RecordCache cache;
  std::set<uintptr_t> pages;
  for (size_t i = 0; i < 3 * kPage / 64; ++i) {
    const ThreadContextRecord* r = pool.Take(cache);
    ASSERT_NE(r, nullptr);
    pages.insert(PageOf(r));
    pages.insert(PageOf(reinterpret_cast<const char*>(r) + 63));
  }
  for (uintptr_t page : pages) {
    EXPECT_EQ(BackingOf(reinterpret_cast<void*>(page * kPage)), Backing::kZeroPage)
        << "page " << page - PageOf(pool.base()) << " is "
        << Name(BackingOf(reinterpret_cast<void*>(page * kPage)));
  }
  EXPECT_EQ(pool.ResidentBytes() % kPage, 0u);
  EXPECT_LT(pool.ResidentBytes(), pages.size() * kPage);  // records read, not written: not resident
}

// Records nobody wrote go back, through the cache, the shared stack and out again, without a write
// to their pages (1M threads that never publish must not leave 64 MB behind).
TEST(RecordPool, ReturningCleanRecordsLeavesTheirPagesClean) {
  RecordPool pool;
  RecordCache cache;
  std::vector<ThreadContextRecord*> taken;
  for (size_t i = 0; i < 4 * kPage / 64; ++i) taken.push_back(pool.Take(cache));
  for (ThreadContextRecord* r : taken) pool.Return(cache, r);  // spills through the shared stack
  pool.Flush(cache);
  for (size_t i = 0; i < taken.size(); ++i) pool.Take(cache);  // and refills from it
  for (ThreadContextRecord* r : taken) {
    ASSERT_EQ(BackingOf(r), Backing::kZeroPage)
        << "record " << r - taken.front() << " on a " << Name(BackingOf(r)) << " page";
  }
}

// A record is zeroed on return if ANY byte of it was written, including the last attribute byte.
TEST(RecordPool, ReturnZeroesARecordWrittenAnywhere) {
  for (size_t size : {size_t{64}, size_t{640}}) {
    RecordPool pool(size);
    RecordCache cache;
    for (size_t at : {size_t{0}, size_t{24}, size_t{27}, size - 1}) {
      ThreadContextRecord* r = pool.Take(cache);
      reinterpret_cast<uint8_t*>(r)[at] = 0x5a;
      pool.Return(cache, r);
      EXPECT_TRUE(IsZero(r, size)) << "size " << size << ", byte " << at;
      EXPECT_EQ(pool.Take(cache), r);  // the same record comes back, zeroed
      EXPECT_TRUE(IsZero(r, size));
      pool.Return(cache, r);
    }
  }
}

struct Chunked {
  std::map<uintptr_t, std::vector<ThreadContextRecord*>> by_page;  // page -> its records
};

// Takes `pages` pages' worth of 64-byte records, written (private pages), grouped by page.
Chunked TakeWrittenPages(RecordPool& pool, RecordCache& cache, size_t pages) {
  Chunked c;
  for (size_t i = 0; i < pages * kPage / 64; ++i) {
    ThreadContextRecord* r = pool.Take(cache);
    EXPECT_NE(r, nullptr);
    std::memset(static_cast<void*>(r), 0x11, 64);
    c.by_page[PageOf(r)].push_back(r);
  }
  return c;
}

// Trim gives back exactly the pages whose records are all in the shared stack: not one with a
// taken record, not one with a record in a thread's cache; the taken record keeps its contents.
TEST(RecordPool, TrimGivesBackExactlyTheWhollyFreePages) {
  RecordPool pool;
  RecordCache cache, other;
  Chunked c = TakeWrittenPages(pool, cache, 4);
  ASSERT_EQ(c.by_page.size(), 4u);
  auto page = c.by_page.begin();
  std::vector<ThreadContextRecord*>& all_free = (page++)->second;
  std::vector<ThreadContextRecord*>& one_taken = (page++)->second;
  std::vector<ThreadContextRecord*>& in_cache = (page++)->second;
  std::vector<ThreadContextRecord*>& also_free = (page++)->second;
  ThreadContextRecord* kept = one_taken[17];
  for (ThreadContextRecord* r : all_free) pool.Return(cache, r);
  for (ThreadContextRecord* r : one_taken) {
    if (r != kept) pool.Return(cache, r);
  }
  for (ThreadContextRecord* r : also_free) pool.Return(cache, r);
  pool.Flush(cache);
  // The last 16 stay in `other`'s cache (it spills the rest).
  for (ThreadContextRecord* r : in_cache) pool.Return(other, r);
  ASSERT_EQ(other.count, RecordCache::kCapacity);

  EXPECT_EQ(pool.Trim(), 2 * kPage);  // record pages only: the link page also serves live records
  EXPECT_EQ(BackingOf(all_free[0]), Backing::kNone);
  EXPECT_EQ(BackingOf(also_free[0]), Backing::kNone);
  EXPECT_EQ(BackingOf(kept), Backing::kPrivate);
  EXPECT_EQ(BackingOf(in_cache[0]), Backing::kPrivate);
  const auto* bytes = reinterpret_cast<const uint8_t*>(kept);
  EXPECT_TRUE(std::all_of(bytes, bytes + 64, [](uint8_t b) { return b == 0x11; }));
  RecordPoolStats s = pool.Stats();
  EXPECT_EQ(s.trimmed, 2 * kPage / 64);
  EXPECT_EQ(s.trimmed_bytes, 2 * kPage);
  EXPECT_EQ(pool.Trim(), 0u);  // nothing new to give back

  // Taking everything back: the stack's records first, then the trimmed pages, revived: present,
  // zero, and no fresh record carved.
  const uint64_t carved = s.carved;
  pool.Flush(other);
  std::set<ThreadContextRecord*> again;
  for (size_t i = 0; i < 4 * kPage / 64 - 1; ++i) {
    ThreadContextRecord* r = pool.Take(cache);
    ASSERT_TRUE(IsZero(r, 64));
    ASSERT_NE(BackingOf(r), Backing::kNone);
    ASSERT_TRUE(again.insert(r).second) << "handed out twice";
  }
  EXPECT_EQ(again.count(kept), 0u);
  EXPECT_EQ(pool.Stats().carved, carved);
  EXPECT_EQ(pool.Stats().trimmed, 0u);
  // All 4 pages' records are out: the next one is freshly carved.
  EXPECT_EQ(again.count(pool.Take(cache)), 0u);
  EXPECT_GT(pool.Stats().carved, carved);
}

// When everything is free, the links go too: the pool's resident memory returns to (almost) 0.
TEST(RecordPool, TrimOfAnIdlePoolGivesBackRecordsAndLinks) {
  RecordPool pool;
  RecordCache cache;
  const size_t pages = 64;  // 4096 records of 64 B: their links fill 8 pages
  Chunked c = TakeWrittenPages(pool, cache, pages);
  const uint64_t busy = pool.ResidentBytes();
  EXPECT_GE(busy, pages * kPage);
  for (auto& [page, records] : c.by_page) {
    for (ThreadContextRecord* r : records) pool.Return(cache, r);
  }
  pool.Flush(cache);
  const uint64_t idle = pool.ResidentBytes();
  EXPECT_GE(idle, pages * kPage + pages * kPage / 8);  // records and their links
  const uint64_t given = pool.Trim();
  EXPECT_EQ(given, pages * kPage + pages * kPage / 8);
  EXPECT_LE(pool.ResidentBytes(), kPage) << "idle " << idle << ", gave back " << given;
}

TEST(RecordPool, TrimWorksForLargeRecords) {
  RecordPool pool(640);
  RecordCache cache;
  std::vector<ThreadContextRecord*> taken;
  for (int i = 0; i < 4000; ++i) {
    taken.push_back(pool.Take(cache));
    std::memset(static_cast<void*>(taken.back()), 0x22, 640);
  }
  ThreadContextRecord* kept = taken[1000];
  for (ThreadContextRecord* r : taken) {
    if (r != kept) pool.Return(cache, r);
  }
  pool.Flush(cache);
  const uint64_t given = pool.Trim();
  // 640-byte records come in chunks of 32 (5 pages); all but kept's chunk and a slab's partial
  // chunk at the carving frontier go.
  EXPECT_GE(given, (4000 / 32 - 2) * 5 * kPage);
  EXPECT_EQ(reinterpret_cast<uint8_t*>(kept)[639], 0x22);
  for (int i = 0; i < 3999; ++i) ASSERT_TRUE(IsZero(pool.Take(cache), 640)) << i;
}

TEST(RecordPool, TrimWantedWhenLiveFallsFarBelowPeakWithMegabytesIdle) {
  RecordPool pool;
  RecordCache cache;
  std::vector<ThreadContextRecord*> taken;
  const size_t peak = 4 * RecordPool::kTrimMinIdleBytes / 64;
  for (size_t i = 0; i < peak; ++i) taken.push_back(pool.Take(cache));
  EXPECT_FALSE(pool.TrimWanted());
  // Half gone: live above a quarter of the peak.
  for (size_t i = 0; i < peak / 2; ++i) pool.Return(cache, taken[i]);
  EXPECT_FALSE(pool.TrimWanted());
  // A quarter left, with 3/4 of the peak (6 MiB) idle.
  for (size_t i = peak / 2; i < peak * 3 / 4 + RecordCache::kCapacity; ++i) {
    pool.Return(cache, taken[i]);
  }
  EXPECT_TRUE(pool.TrimWanted());
  EXPECT_GT(pool.Trim(), 0u);
  EXPECT_FALSE(pool.TrimWanted());  // idle memory gone, and the window restarted
}

TEST(RecordPool, SpillWakesTheTrimmer) {
  RecordPool pool;
  pool.EnableTrimRequests();
  std::atomic<uint64_t> trimmed{0};
  std::atomic<bool> woke{false};
  std::thread trimmer([&] {
    pool.WaitForTrimRequest();
    woke = true;
    trimmed = pool.TrimIfWanted();
  });
  RecordCache cache;
  std::vector<ThreadContextRecord*> taken;
  const size_t peak = 4 * RecordPool::kTrimMinIdleBytes / 64;
  for (size_t i = 0; i < peak; ++i) taken.push_back(pool.Take(cache));
  for (ThreadContextRecord* r : taken) pool.Return(cache, r);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!woke && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_TRUE(woke) << "no trim request within 30 s";
  trimmer.join();
  EXPECT_GT(trimmed.load(), 0u);
}

// Takes, returns and trims race: a record written right after Take must still hold what was
// written when its holder returns it (a trim zapping its page would zero it), and a taken record
// is always zero. Runs under ASan/UBSan too (tls-publish.unit_asan_ubsan).
TEST(RecordPool, ConcurrentTakeReturnTrimNeverLosesAWrite) {
  RecordPool pool;
  constexpr int kThreads = 4;
  std::atomic<int> violations{0};
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> trimmed{0};
  std::thread trimmer([&] {
    while (!stop.load()) trimmed += pool.Trim();
  });
  std::vector<std::thread> workers;
  for (int t = 0; t < kThreads; ++t) {
    workers.emplace_back([&, t] {
      RecordCache cache;
      std::vector<ThreadContextRecord*> held;
      for (int round = 0; round < 60; ++round) {
        // Bursts of different sizes, so that whole pages fall free while others are taken.
        const size_t burst = 500 + (round * 7919 + t * 104729) % 5000;
        for (size_t i = 0; i < burst; ++i) {
          ThreadContextRecord* r = pool.Take(cache);
          if (r == nullptr || !IsZero(r, 64)) {
            violations++;
            continue;
          }
          r->trace_id[0] = static_cast<uint8_t>(t + 1);
          r->span_id[7] = static_cast<uint8_t>(i | 1);
          r->valid = 1;
          held.push_back(r);
        }
        for (size_t i = 0; i < held.size(); ++i) {
          ThreadContextRecord* r = held[i];
          if (r->trace_id[0] != t + 1 || r->valid != 1) violations++;  // a lost write
          pool.Return(cache, r);
        }
        held.clear();
        pool.Flush(cache);
      }
    });
  }
  for (auto& w : workers) w.join();
  stop = true;
  trimmer.join();
  EXPECT_EQ(violations.load(), 0);
  EXPECT_EQ(pool.Stats().outstanding, 0u);
  EXPECT_GT(trimmed.load(), 0u) << "no trim ran while records were taken: the test proved nothing";
  // Everything is free again: one more trim gives every record page back.
  pool.Trim();
  RecordCache cache;
  for (uint64_t i = 0; i < pool.Stats().carved; ++i) {
    const ThreadContextRecord* r = pool.Take(cache);
    ASSERT_NE(r, nullptr);
    ASSERT_TRUE(IsZero(r, 64));
  }
}

}  // namespace
}  // namespace vtctx
