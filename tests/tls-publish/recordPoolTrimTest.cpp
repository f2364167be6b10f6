// The steps of RecordPool::Trim() (tls-publish/recordPoolTrim.h) on small hand-made arrays: each
// step's rule alone. recordPoolTest.cpp checks the whole trim on a real pool.
#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "recordPoolTrim.h"

namespace vtctx::record_pool {
namespace {

// 2 slabs of 10 records, chunks of 4 records: chunks 1-2 are slots 0-7 (slots 8-9 belong to no
// chunk), chunks 3-4 slots 10-17.
constexpr ChunkTiling kTiling{10, 4, 2};

// Links for `slots` records and a stack of batches built from them (record indexes, 1-based).
struct Stack {
  std::vector<FreeLink> links;
  uint32_t top = 0;

  explicit Stack(size_t slots) : links(slots, FreeLink{0, 0}) {}

  // Pushes one batch holding these records in this order.
  void Push(const std::vector<uint32_t>& batch) {
    for (size_t i = 0; i < batch.size(); ++i) {
      links[batch[i] - 1].next = i + 1 < batch.size() ? batch[i + 1] : 0;
    }
    links[batch[0] - 1].next_batch = top;
    top = batch[0];
  }

  // The batches from `from`, each as its records in order.
  std::vector<std::vector<uint32_t>> Batches(uint32_t from) {
    std::vector<std::vector<uint32_t>> out;
    for (uint32_t b = from; b != 0; b = links[b - 1].next_batch) {
      out.emplace_back();
      for (uint32_t r = b; r != 0; r = links[r - 1].next) out.back().push_back(r);
    }
    return out;
  }
};

TEST(RecordPoolTrim, TilingMapsChunksAndSlots) {
  EXPECT_EQ(kTiling.FirstSlot(1), 0u);
  EXPECT_EQ(kTiling.FirstSlot(2), 4u);
  EXPECT_EQ(kTiling.FirstSlot(3), 10u);
  EXPECT_EQ(kTiling.ChunkOfSlot(3), 1u);
  EXPECT_EQ(kTiling.ChunkOfSlot(7), 2u);
  EXPECT_EQ(kTiling.ChunkOfSlot(8), 0u) << "a slab's tail belongs to no chunk";
  EXPECT_EQ(kTiling.ChunkOfSlot(9), 0u);
  EXPECT_EQ(kTiling.ChunkOfSlot(14), 4u);
  EXPECT_EQ(kTiling.ChunksBelow(3), 0u);
  EXPECT_EQ(kTiling.ChunksBelow(8), 2u);
  EXPECT_EQ(kTiling.ChunksBelow(10), 2u);
  EXPECT_EQ(kTiling.ChunksBelow(14), 3u);
  EXPECT_EQ(kTiling.ChunksBelow(20), 4u);
}

// Step 1 counts per chunk only the records of the counted chunks.
TEST(RecordPoolTrim, CountFreePerChunkCountsRecordsOfCountedChunksOnly) {
  Stack s(20);
  s.Push({1, 2, 3, 4, 9});  // chunk 1 whole, and slot 8 (no chunk)
  s.Push({5, 7, 11});       // two of chunk 2, one of chunk 3
  s.Push({15, 16});         // chunk 4: beyond the counted chunks
  uint16_t mark[3] = {};
  CountFreePerChunk(s.links.data(), s.top, kTiling, 3, mark);
  EXPECT_EQ(mark[0], 4u);
  EXPECT_EQ(mark[1], 2u);
  EXPECT_EQ(mark[2], 1u);
}

// Step 2 keeps, in walk order and in batches of `batch`, every record not in a wholly free chunk.
TEST(RecordPoolTrim, RebatchPartlyFreeKeepsAllButWhollyFreeChunksInBatches) {
  Stack s(20);
  s.Push({1, 2, 3, 4, 9});  // chunk 1 wholly free; slot 8 in no chunk: kept
  s.Push({5, 7, 11});       // chunks 2 and 3 partly free: kept
  s.Push({15, 16});         // chunk 4 not counted: kept
  uint16_t mark[3] = {};
  CountFreePerChunk(s.links.data(), s.top, kTiling, 3, mark);
  const uint32_t top = s.top;
  const NodeChain kept = RebatchPartlyFree(s.links.data(), top, kTiling, 3, mark, 2);
  const std::vector<std::vector<uint32_t>> want = {{15, 16}, {5, 7}, {11, 9}};
  EXPECT_EQ(s.Batches(kept.first), want);
  EXPECT_EQ(kept.last, 11u);
}

TEST(RecordPoolTrim, RebatchOfOnlyWhollyFreeChunksIsEmpty) {
  Stack s(20);
  s.Push({1, 2});
  s.Push({3, 4});
  uint16_t mark[2] = {};
  CountFreePerChunk(s.links.data(), s.top, kTiling, 2, mark);
  const NodeChain kept = RebatchPartlyFree(s.links.data(), s.top, kTiling, 2, mark, 8);
  EXPECT_EQ(kept.first, 0u);
  EXPECT_EQ(kept.last, 0u);
}

// Step 3: wholly free chunks are trimmed now, the chained ones were trimmed before, others none.
TEST(RecordPoolTrim, MarkTrimmedChunksMarksNowAndBefore) {
  uint16_t mark[4] = {4, 3, 0, 4};
  uint32_t chunk_links[5] = {};
  chunk_links[2 - 1] = 3;  // trimmed before: 2 -> 3 -> 5 (5 is beyond the counted chunks)
  chunk_links[3 - 1] = 5;
  chunk_links[5 - 1] = 0;
  EXPECT_EQ(MarkTrimmedChunks(chunk_links, 2, 4, 4, mark), 2u);
  EXPECT_EQ(mark[0], kTrimmedNow);
  EXPECT_EQ(mark[1], kTrimmedBefore);
  EXPECT_EQ(mark[2], kTrimmedBefore);
  EXPECT_EQ(mark[3], kTrimmedNow);
}

// Step 4: one zap per run of chunks trimmed now and adjacent in memory.
TEST(RecordPoolTrim, ZapChunksTrimmedNowZapsRunsAdjacentInMemory) {
  static char memory[1000];
  // Chunks of 10 bytes; chunk 3 starts after a gap (another slab).
  const std::vector<size_t> begin_of = {0, 10, 20, 40, 50, 60};
  const uint16_t mark[6] = {kTrimmedNow, kTrimmedNow,    kTrimmedNow,
                            kTrimmedNow, kTrimmedBefore, kTrimmedNow};
  std::vector<std::pair<size_t, size_t>> zapped;
  ZapChunksTrimmedNow(
      mark, 6, 10, [&](uint64_t c) { return memory + begin_of[c]; },
      [&](char* b, size_t length) { zapped.emplace_back(b - memory, length); });
  const std::vector<std::pair<size_t, size_t>> want = {{0, 30}, {40, 10}, {60, 10}};
  EXPECT_EQ(zapped, want);
}

// Step 5: side pages (8 bytes per slot) that describe only trimmed chunks, one of them new.
TEST(RecordPoolTrim, ZapSidePagesOfTrimmedChunksSparesSharedAndOldPages) {
  // 1 slab of 64 records, chunks of 8 records: one chunk's links are 64 bytes, and 64-byte "pages"
  // make a page one chunk's links.
  constexpr ChunkTiling tiling{64, 8, 8};
  const uint16_t mark[8] = {
      kTrimmedNow, kTrimmedBefore, kTrimmedBefore, 0, kTrimmedNow, kTrimmedNow, 0, kTrimmedNow};
  std::vector<std::pair<size_t, size_t>> zapped;
  ZapSidePagesOfTrimmedChunks(mark, 8, tiling, 64, [&](size_t offset, size_t length) {
    zapped.emplace_back(offset, length);
  });
  // Chunk 1's page; chunks 2-3 were zapped before; 5-6 one range; 8 its page.
  const std::vector<std::pair<size_t, size_t>> want = {{0, 64}, {256, 128}, {448, 64}};
  EXPECT_EQ(zapped, want);

  // Pages of 128 bytes hold two chunks' links: a page shared with an untrimmed chunk stays.
  zapped.clear();
  ZapSidePagesOfTrimmedChunks(mark, 8, tiling, 128, [&](size_t offset, size_t length) {
    zapped.emplace_back(offset, length);
  });
  // Chunks 1-2: new and old on one page; 3-4: 4 untrimmed; 5-6: one page; 7-8: 7 untrimmed.
  const std::vector<std::pair<size_t, size_t>> want_wide = {{0, 128}, {256, 128}};
  EXPECT_EQ(zapped, want_wide);
}

// Step 6: all marked chunks chained, lowest first.
TEST(RecordPoolTrim, ChainTrimmedChunksLinksMarkedChunksLowestFirst) {
  const uint16_t mark[5] = {0, kTrimmedBefore, kTrimmedNow, 0, kTrimmedNow};
  uint32_t chunk_links[5] = {};
  const NodeChain chain = ChainTrimmedChunks(chunk_links, 5, mark);
  EXPECT_EQ(chain.first, 2u);
  EXPECT_EQ(chain.last, 5u);
  EXPECT_EQ(chunk_links[2 - 1], 3u);
  EXPECT_EQ(chunk_links[3 - 1], 5u);
  const uint16_t none[2] = {0, 0};
  const NodeChain empty = ChainTrimmedChunks(chunk_links, 2, none);
  EXPECT_EQ(empty.first, 0u);
  EXPECT_EQ(empty.last, 0u);
}

}  // namespace
}  // namespace vtctx::record_pool
