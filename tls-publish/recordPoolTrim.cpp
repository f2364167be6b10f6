#include "recordPoolTrim.h"

namespace vtctx {
namespace record_pool {
namespace {

// The chunk of record `index` if it is one of the first `chunks`, else 0.
uint64_t CountedChunkOf(const ChunkTiling& tiling, uint64_t chunks, uint32_t index) {
  const uint64_t c = tiling.ChunkOfSlot(index - 1);
  return c <= chunks ? c : 0;
}

}  // namespace

void CountFreePerChunk(FreeLink* links, uint32_t top, const ChunkTiling& tiling, uint64_t chunks,
                       uint16_t* mark) {
  for (uint32_t b = top; b != 0; b = LoadLink(links[b - 1].next_batch)) {
    for (uint32_t r = b; r != 0; r = links[r - 1].next) {
      if (const uint64_t c = CountedChunkOf(tiling, chunks, r)) ++mark[c - 1];
    }
  }
}

NodeChain RebatchPartlyFree(FreeLink* links, uint32_t top, const ChunkTiling& tiling,
                            uint64_t chunks, const uint16_t* mark, uint32_t batch) {
  NodeChain heads;
  uint32_t head = 0, tail = 0, n = 0;  // the batch being filled
  auto close_batch = [&] {
    if (n == 0) return;
    links[tail - 1].next = 0;
    if (heads.last != 0) {
      StoreLink(links[heads.last - 1].next_batch, head);
    } else {
      heads.first = head;
    }
    heads.last = head;
    n = 0;
  };
  for (uint32_t b = top; b != 0;) {
    const uint32_t next_batch = LoadLink(links[b - 1].next_batch);
    for (uint32_t r = b; r != 0;) {
      const uint32_t next = links[r - 1].next;
      const uint64_t c = CountedChunkOf(tiling, chunks, r);
      if (c == 0 || mark[c - 1] != tiling.chunk_records) {
        if (n == 0) {
          head = r;
        } else {
          links[tail - 1].next = r;
        }
        tail = r;
        if (++n == batch) close_batch();
      }
      r = next;
    }
    b = next_batch;
  }
  close_batch();
  return heads;
}

uint64_t MarkTrimmedChunks(uint32_t* chunk_links, uint32_t trimmed_top, uint64_t chunks,
                           uint64_t chunk_records, uint16_t* mark) {
  uint64_t now = 0;
  for (uint64_t c = 0; c < chunks; ++c) {
    if (mark[c] == chunk_records) {
      mark[c] = kTrimmedNow;
      ++now;
    } else {
      mark[c] = 0;
    }
  }
  for (uint32_t c = trimmed_top; c != 0; c = LoadLink(chunk_links[c - 1])) {
    if (c <= chunks) mark[c - 1] = kTrimmedBefore;
  }
  return now;
}

NodeChain ChainTrimmedChunks(uint32_t* chunk_links, uint64_t chunks, const uint16_t* mark) {
  NodeChain chain;
  for (uint64_t c = 0; c < chunks; ++c) {
    if (mark[c] == 0) continue;
    const auto chunk = static_cast<uint32_t>(c + 1);
    if (chain.last != 0) {
      StoreLink(chunk_links[chain.last - 1], chunk);
    } else {
      chain.first = chunk;
    }
    chain.last = chunk;
  }
  return chain;
}

}  // namespace record_pool
}  // namespace vtctx
