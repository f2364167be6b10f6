// The steps of RecordPool::Trim(), as functions over the pool's plain arrays (free-record links,
// chunk links, one mark per chunk), so that each step's rule is tested on its own
// (tests/tls-publish/recordPoolTrimTest.cpp). RecordPool::Trim() owns the concurrency: it runs
// them only on records and chunks it has detached from the shared stacks, which no Take can reach
// meanwhile.
//
// Indexes: a record's index is its slot + 1 and a chunk's number is its position + 1 (0 = none),
// as in RecordPool; `mark[c]` is the mark of chunk c + 1.
#ifndef VTCTX_TLS_PUBLISH_RECORD_POOL_TRIM_H_
#define VTCTX_TLS_PUBLISH_RECORD_POOL_TRIM_H_

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace vtctx {
// The pool's side structures and Trim()'s steps (RecordPool uses them under these names).
namespace record_pool {

// Links of a free record (side array indexed by slot = index - 1).
struct FreeLink {
  uint32_t next_batch;  // in the shared stack: the next batch's first record (batch heads only)
  uint32_t next;        // the next record of this batch, 0 at its end
};

// Next-batch and chunk links are read concurrently by stale Pop()s (see taggedIndexStack.h):
// always atomic.
inline uint32_t LoadLink(uint32_t& link) {
  return std::atomic_ref<uint32_t>(link).load(std::memory_order_relaxed);
}
inline void StoreLink(uint32_t& link, uint32_t value) {
  std::atomic_ref<uint32_t>(link).store(value, std::memory_order_relaxed);
}

// How chunks (the fewest records that fill whole pages) tile the slabs: from each slab's start,
// chunks_per_slab of chunk_records records; a slab's last records may belong to no chunk.
struct ChunkTiling {
  uint64_t records_per_slab;
  uint64_t chunk_records;
  uint64_t chunks_per_slab;  // 0: chunks do not fit a slab

  // The first slot of chunk `chunk` (1-based).
  uint64_t FirstSlot(uint64_t chunk) const {
    const uint64_t c = chunk - 1;
    return (c / chunks_per_slab) * records_per_slab + (c % chunks_per_slab) * chunk_records;
  }
  // The chunk holding slot k, or 0.
  uint64_t ChunkOfSlot(uint64_t k) const {
    const uint64_t in_slab = k % records_per_slab / chunk_records;
    if (in_slab >= chunks_per_slab) return 0;
    return k / records_per_slab * chunks_per_slab + in_slab + 1;
  }
  // How many chunks lie wholly below the first `carved` slots.
  uint64_t ChunksBelow(uint64_t carved) const {
    return carved / records_per_slab * chunks_per_slab +
           std::min(chunks_per_slab, carved % records_per_slab / chunk_records);
  }
};

// A chain of linked nodes, first -> ... -> last (0, 0: empty), for TaggedIndexStack::PushChain.
struct NodeChain {
  uint32_t first = 0;
  uint32_t last = 0;
};

// Chunk marks after MarkTrimmedChunks (before: each chunk's count of free records).
constexpr uint16_t kTrimmedNow = 0xffff;
constexpr uint16_t kTrimmedBefore = 0xfffe;

// Step 1: counts into mark[] the records of each of the first `chunks` chunks that the batches
// from `top` hold (records of no chunk, or of a chunk beyond `chunks`, are not counted). `mark`
// must start zeroed.
void CountFreePerChunk(FreeLink* links, uint32_t top, const ChunkTiling& tiling, uint64_t chunks,
                       uint16_t* mark);

// Step 2: relinks, in batches of `batch`, the records of the batches from `top` that are not in a
// wholly free chunk (mark[] as step 1 left it; records of no chunk count as not wholly free), in
// the order the walk meets them, and returns their chain of batch heads. Only links of records
// already walked are rewritten: a batch's next-batch link is read before its records.
NodeChain RebatchPartlyFree(FreeLink* links, uint32_t top, const ChunkTiling& tiling,
                            uint64_t chunks, const uint16_t* mark, uint32_t batch);

// Step 3: turns step 1's counts into marks: kTrimmedNow for a wholly free chunk, else 0; then
// kTrimmedBefore for each chunk on the chain from `trimmed_top` (chunk links; chunks beyond
// `chunks` are skipped). Returns the number of kTrimmedNow chunks.
uint64_t MarkTrimmedChunks(uint32_t* chunk_links, uint32_t trimmed_top, uint64_t chunks,
                           uint64_t chunk_records, uint16_t* mark);

// Step 4: calls zap(begin, length) once per run of kTrimmedNow chunks adjacent in memory
// (begin(c) is where 0-based chunk c starts, each chunk `chunk_bytes` long).
template <typename Begin, typename Zap>
void ZapChunksTrimmedNow(const uint16_t* mark, uint64_t chunks, size_t chunk_bytes, Begin begin,
                         Zap zap) {
  for (uint64_t c = 0; c < chunks;) {
    if (mark[c] != kTrimmedNow) {
      ++c;
      continue;
    }
    char* first = begin(c);
    char* end = first + chunk_bytes;
    for (++c; c < chunks && mark[c] == kTrimmedNow && begin(c) == end; ++c) end += chunk_bytes;
    zap(first, static_cast<size_t>(end - first));
  }
}

// Step 5: calls zap(offset, length) for the byte ranges of a side array of 8 bytes per slot whose
// whole pages describe only trimmed chunks (marked), at least one of them kTrimmedNow (the
// others' pages were zapped when they were trimmed). Runs of marked chunks adjacent in slot
// order; a page shared with an unmarked chunk's slots stays.
template <typename Zap>
void ZapSidePagesOfTrimmedChunks(const uint16_t* mark, uint64_t chunks, const ChunkTiling& tiling,
                                 size_t page_size, Zap zap) {
  constexpr size_t kSlotBytes = 8;
  for (uint64_t c = 0; c < chunks;) {
    if (mark[c] == 0) {
      ++c;
      continue;
    }
    const uint64_t first_slot = tiling.FirstSlot(c + 1);
    uint64_t end_slot = first_slot + tiling.chunk_records;
    for (++c; c < chunks && mark[c] != 0 && tiling.FirstSlot(c + 1) == end_slot; ++c) {
      end_slot += tiling.chunk_records;
    }
    const size_t from = (first_slot * kSlotBytes + page_size - 1) / page_size * page_size;
    const size_t to = end_slot * kSlotBytes / page_size * page_size;
    size_t zap_from = to;  // the open range of pages to zap
    for (size_t page = from; page <= to; page += page_size) {
      bool has_new = false;
      if (page < to) {
        const uint64_t lo = tiling.ChunkOfSlot(page / kSlotBytes);
        const uint64_t hi = tiling.ChunkOfSlot((page + page_size) / kSlotBytes - 1);
        for (uint64_t k = lo; k <= hi && !has_new; ++k) has_new = mark[k - 1] == kTrimmedNow;
      }
      if (has_new && zap_from == to) zap_from = page;
      if (!has_new && zap_from != to) {
        zap(zap_from, page - zap_from);
        zap_from = to;
      }
    }
  }
}

// Step 6: links every marked chunk, lowest first (revived first, they keep the pool's resident
// records low in the reservation), and returns the chain.
NodeChain ChainTrimmedChunks(uint32_t* chunk_links, uint64_t chunks, const uint16_t* mark);

}  // namespace record_pool
}  // namespace vtctx

#endif  // VTCTX_TLS_PUBLISH_RECORD_POOL_TRIM_H_
