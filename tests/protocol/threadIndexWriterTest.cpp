// The identity channel's thread index: the writer against the golden vectors
// (protocol/vectors/threadIndex.vec), the protocol's lookup against them, the writer's bounds
// (probe length, load, memory that follows the live threads) and a reader in the same process
// that never takes another thread's record while the writer churns.
#include <gtest/gtest.h>
#include <sys/uio.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <map>
#include <random>
#include <span>
#include <thread>
#include <vector>

#include "threadIndexWriter.h"
#include "vectorFile.h"
#include "vtctx/threadIndexLookup.h"

namespace vtctx {
namespace {

using testing::ReadVectors;
using testing::SplitList;
using testing::Vector;

// The current table's entries (no rebuild may run meanwhile).
std::span<const vtctx_index_entry> Entries(const ThreadIndexWriter& index) {
  const auto* head = reinterpret_cast<const vtctx_index_table_header*>(index.header()->table);
  const auto* entries = reinterpret_cast<const vtctx_index_entry*>(
      reinterpret_cast<const char*>(head) + VTCTX_INDEX_TABLE_HEADER_SIZE);
  return {entries, head->capacity};
}

const vtctx_index_table_header& TableHead(const ThreadIndexWriter& index) {
  return *reinterpret_cast<const vtctx_index_table_header*>(index.header()->table);
}

// Reads this process's memory without faulting (a rebuild may unmap a table under the reader).
bool ReadSelf(uint64_t address, void* out, size_t size) {
  iovec local{out, size};
  iovec remote{reinterpret_cast<void*>(address), size};
  return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == static_cast<ssize_t>(size);
}

const void* Record(uint64_t hex) { return reinterpret_cast<const void*>(hex); }

TEST(ThreadIndexVectors, HomesFollowTheHash) {
  const std::vector<Vector> vectors = ReadVectors("threadIndex.vec", "home");
  ASSERT_GE(vectors.size(), 5u);
  for (const Vector& v : vectors) {
    EXPECT_EQ(
        vtctx_index_home(std::stoull(v.Field("thread_id")), static_cast<uint32_t>(v.Int("shift"))),
        std::stoull(v.Field("slot")))
        << v.name;
  }
}

TEST(ThreadIndexVectors, WriterBuildsTheVectorsTables) {
  const std::vector<Vector> vectors = ReadVectors("threadIndex.vec", "build");
  ASSERT_GE(vectors.size(), 5u);
  for (const Vector& v : vectors) {
    ThreadIndexWriter index;
    ASSERT_TRUE(index.ok());
    for (const std::string& op : SplitList(v.Field("ops"), ',')) {
      const size_t colon = op.find(':');
      const uint64_t id = std::stoull(op.substr(1, colon - 1));
      const void* record = Record(std::stoull(op.substr(colon + 1), nullptr, 16));
      if (op[0] == '+') {
        ASSERT_TRUE(index.Insert(id, record)) << v.name << " " << op;
      } else {
        index.Remove(id, record);
      }
    }
    std::map<uint64_t, std::string> want;
    for (const std::string& e : SplitList(v.Field("entries"), ',')) {
      want[std::stoull(e.substr(0, e.find(':')))] = e.substr(e.find(':') + 1);
    }
    const auto entries = Entries(index);
    ASSERT_EQ(entries.size(), uint64_t{VTCTX_INDEX_MIN_CAPACITY}) << v.name;
    std::map<uint64_t, std::string> got;
    for (uint64_t slot = 0; slot < entries.size(); ++slot) {
      const vtctx_index_entry& e = entries[slot];
      if (e.thread_id == VTCTX_INDEX_EMPTY) continue;
      char record[32];
      std::snprintf(record, sizeof record, "%llx", static_cast<unsigned long long>(e.record));
      got[slot] = e.thread_id == VTCTX_INDEX_REMOVED ? std::string("removed")
                                                     : std::to_string(e.thread_id) + ":" + record;
    }
    EXPECT_EQ(got, want) << v.name;
  }
}

TEST(ThreadIndexVectors, HeadersAreCheckedBeforeUse) {
  int n = 0;
  for (const Vector& v : ReadVectors("threadIndex.vec", "header")) {
    const std::string bytes = v.Bytes("bytes");
    ASSERT_EQ(bytes.size(), sizeof(vtctx_index_header)) << v.name;
    vtctx_index_header header;
    std::memcpy(&header, bytes.data(), sizeof header);
    const char* problem = protocol::IndexHeaderProblem(header);
    if (v.fields.count("malformed")) {
      EXPECT_NE(problem, nullptr) << v.name;
    } else {
      EXPECT_EQ(problem, nullptr) << v.name;
      EXPECT_EQ(header.table, std::stoull(v.Field("table"), nullptr, 16)) << v.name;
    }
    ++n;
  }
  EXPECT_GE(n, 4);
}

TEST(ThreadIndexVectors, LookupFindsWhatTheVectorsSay) {
  const std::vector<Vector> vectors = ReadVectors("threadIndex.vec", "lookup");
  ASSERT_GE(vectors.size(), 10u);
  constexpr uint64_t kHeaderAt = 0x10000;
  constexpr uint64_t kTableAt = 0x20000;
  for (const Vector& v : vectors) {
    const std::string table = v.Bytes("table");
    vtctx_index_header header{VTCTX_INDEX_MAGIC, VTCTX_INDEX_LAYOUT, 0, kTableAt, 1};
    auto read = [&](uint64_t address, void* out, size_t size) {
      if (address >= kHeaderAt && address + size <= kHeaderAt + sizeof header) {
        std::memcpy(out, reinterpret_cast<const char*>(&header) + (address - kHeaderAt), size);
        return true;
      }
      if (address >= kTableAt && address + size <= kTableAt + table.size()) {
        std::memcpy(out, table.data() + (address - kTableAt), size);
        return true;
      }
      return false;
    };
    const uint64_t id = std::stoull(v.Field("thread_id"));
    const protocol::IndexHit hit = protocol::FindInIndex(read, kHeaderAt, id);
    if (v.Field("record") == "-") {
      EXPECT_EQ(hit.outcome, protocol::IndexOutcome::kNotFound) << v.name;
    } else {
      ASSERT_EQ(hit.outcome, protocol::IndexOutcome::kFound) << v.name;
      EXPECT_EQ(hit.record, std::stoull(v.Field("record"), nullptr, 16)) << v.name;
      EXPECT_TRUE(protocol::ConfirmIndexHit(read, kHeaderAt, id, hit)) << v.name;
    }
  }
}

// Every live entry within max_probe of its home, and the load at most a half.
void ExpectBounded(const ThreadIndexWriter& index) {
  const auto entries = Entries(index);
  const vtctx_index_table_header& head = TableHead(index);
  uint64_t used = 0;
  for (uint64_t slot = 0; slot < entries.size(); ++slot) {
    const uint64_t id = entries[slot].thread_id;
    if (id == VTCTX_INDEX_EMPTY) continue;
    ++used;
    if (id == VTCTX_INDEX_REMOVED) continue;
    const uint64_t distance = (slot - vtctx_index_home(id, head.shift)) & (head.capacity - 1);
    EXPECT_LT(distance, head.max_probe) << "id " << id;
  }
  EXPECT_LE(2 * used, head.capacity);
}

TEST(ThreadIndexWriter, GrowsWithLiveThreadsAndShrinksBack) {
  ThreadIndexWriter index;
  constexpr uint64_t kThreads = 100'000;
  for (uint64_t id = 1; id <= kThreads; ++id) ASSERT_TRUE(index.Insert(id, Record(id * 64)));
  ExpectBounded(index);
  for (uint64_t id = 1; id <= kThreads; id += 997) EXPECT_EQ(index.Find(id), Record(id * 64));
  EXPECT_EQ(index.Stats().live, kThreads);
  EXPECT_GE(index.Stats().capacity, 2 * kThreads);
  for (uint64_t id = 1; id <= kThreads; ++id) ASSERT_TRUE(index.Remove(id, Record(id * 64)));
  EXPECT_EQ(index.Stats().live, 0u);
  EXPECT_EQ(index.Stats().capacity, uint64_t{VTCTX_INDEX_MIN_CAPACITY});
  EXPECT_EQ(index.Find(5), nullptr);
}

TEST(ThreadIndexWriter, MillionShortLivedThreadsKeepMemoryBounded) {
  ThreadIndexWriter index;
  constexpr uint64_t kLive = 200;
  for (uint64_t id = 1; id <= 1'000'000; ++id) {
    ASSERT_TRUE(index.Insert(id, Record(id * 64)));
    if (id > kLive) {
      ASSERT_TRUE(index.Remove(id - kLive, Record((id - kLive) * 64)));
    }
  }
  ExpectBounded(index);
  EXPECT_EQ(index.Stats().live, kLive);
  EXPECT_EQ(index.Stats().capacity, uint64_t{VTCTX_INDEX_MIN_CAPACITY});
  EXPECT_LE(index.Stats().bytes, 20'000u);
}

TEST(ThreadIndexWriter, RemoveNeedsTheThreadsOwnRecordAndReplaceKeepsOneEntry) {
  ThreadIndexWriter index;
  ASSERT_TRUE(index.Insert(7, Record(0x1000)));
  EXPECT_FALSE(index.Remove(7, Record(0x2000)));
  EXPECT_EQ(index.Find(7), Record(0x1000));
  ASSERT_TRUE(index.Insert(7, Record(0x2000)));
  EXPECT_EQ(index.Stats().live, 1u);
  EXPECT_EQ(index.Find(7), Record(0x2000));
  EXPECT_FALSE(index.Insert(0, Record(0x3000)));
  EXPECT_FALSE(index.Insert(VTCTX_INDEX_REMOVED, Record(0x3000)));
}

// A reader that validates as the protocol says never reads another thread's context, while the
// writer inserts, removes and rebuilds (tables unmapped under the reader included) and hands
// records on as the agent does: a record's next owner writes it only after the old entry is gone.
TEST(ThreadIndexWriter, ValidatedReadersNeverTakeAnotherThreadsRecord) {
  ThreadIndexWriter index;
  constexpr size_t kRecords = 1024;
  // A "record" holds the id of the thread that owns it: its context.
  std::vector<std::atomic<uint64_t>> records(kRecords);
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> newest{0};
  std::thread writer([&] {
    std::vector<size_t> free;
    for (size_t k = 0; k < kRecords; ++k) free.push_back(k);
    std::map<uint64_t, size_t> owned;
    std::mt19937_64 random(42);
    for (uint64_t id = 1; id <= 300'000; ++id) {
      const size_t k = free.back();
      free.pop_back();
      records[k].store(id, std::memory_order_release);  // the new owner's context
      index.Insert(id, &records[k]);
      owned[id] = k;
      newest.store(id, std::memory_order_release);
      while (owned.size() > 300 + random() % 300) {  // threads end in a shuffled order
        auto it = owned.begin();
        std::advance(it, random() % std::min<size_t>(owned.size(), 50));
        index.Remove(it->first, &records[it->second]);
        free.push_back(it->second);
        owned.erase(it);
      }
    }
    stop.store(true);
  });
  uint64_t found = 0, wrong = 0;
  std::mt19937_64 random(7);
  const uint64_t header = reinterpret_cast<uint64_t>(index.header());
  while (!stop.load()) {
    const uint64_t top = newest.load(std::memory_order_acquire);
    if (top < 10) continue;
    const uint64_t id = top - random() % std::min<uint64_t>(top - 1, 700);
    const protocol::IndexHit hit = protocol::FindInIndex(ReadSelf, header, id);
    if (hit.outcome != protocol::IndexOutcome::kFound) continue;
    uint64_t context = 0;
    if (!ReadSelf(hit.record, &context, sizeof context)) continue;
    if (!protocol::ConfirmIndexHit(ReadSelf, header, id, hit)) continue;
    ++found;
    if (context != id) ++wrong;
  }
  writer.join();
  EXPECT_EQ(wrong, 0u);
  EXPECT_GT(found, 1000u);
  EXPECT_GE(index.Stats().rebuilds, 1u);
}

}  // namespace
}  // namespace vtctx
