#include "recordPool.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <vector>

namespace vtctx {

RecordPool::RecordPool(size_t record_size, size_t reserve_bytes)
    : record_size_(IsValidRecordSize(record_size) ? record_size : kRecordDefaultSize),
      records_per_slab_(kSlabBytes / record_size_),
      record_shift_(std::has_single_bit(record_size_) ? std::countr_zero(record_size_) : 0) {
  // Whole slabs only; at most 2^32 - 1 records so that a 1-based index fits 32 bits.
  const size_t max_bytes = ((size_t{UINT32_MAX} - 1) * record_size_) / kSlabBytes * kSlabBytes;
  size_t want = std::min(std::max(reserve_bytes, kSlabBytes) / kSlabBytes * kSlabBytes, max_bytes);
  // Slabs are aligned to their size (the shim maps one Java buffer per slab-aligned window):
  // over-reserve by one slab and trim both ends.
  for (; want >= kSlabBytes; want /= 2) {
    void* p = mmap(nullptr, want + kSlabBytes, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) continue;
    const uintptr_t raw = reinterpret_cast<uintptr_t>(p);
    const uintptr_t aligned = (raw + kSlabBytes - 1) & ~(uintptr_t{kSlabBytes} - 1);
    if (aligned > raw) munmap(p, aligned - raw);
    munmap(reinterpret_cast<void*>(aligned + want), raw + kSlabBytes - aligned);
    base_ = reinterpret_cast<char*>(aligned);
    reserved_bytes_ = want;
    break;
  }
  // Records never straddle a slab boundary: the tail of a slab that cannot hold a whole record
  // stays unused (see At()).
  reserved_records_ = base_ ? (reserved_bytes_ / kSlabBytes) * records_per_slab_ : 0;
}

RecordPool::~RecordPool() {
  if (base_ != nullptr) munmap(base_, reserved_bytes_);
}

void RecordPool::Zero(ThreadContextRecord* record) const {
  // The default size gets a fixed-length memset the compiler turns into a few wide stores.
  if (record_size_ == kRecordDefaultSize) {
    std::memset(static_cast<void*>(record), 0, kRecordDefaultSize);
  } else {
    std::memset(static_cast<void*>(record), 0, record_size_);
  }
}

bool RecordPool::EnsureCommitted(uint64_t end_record) {
  const uint64_t need = (end_record + records_per_slab_ - 1) / records_per_slab_;
  uint64_t have = committed_slabs_.load(std::memory_order_acquire);
  if (need <= have) return true;
  // Several threads may commit the same slabs concurrently: mprotect is idempotent, and a slab is
  // counted as committed only after its mprotect returned.
  const size_t from = have * kSlabBytes;
  const size_t len = (need - have) * kSlabBytes;
  if (mprotect(base_ + from, len, PROT_READ | PROT_WRITE) != 0) return false;
  while (have < need && !committed_slabs_.compare_exchange_weak(
                            have, need, std::memory_order_release, std::memory_order_acquire)) {
  }
  return true;
}

bool RecordPool::Refill(RecordCache& cache) {
  if (base_ == nullptr) return false;
  if (const uint32_t head = free_batches_.Pop(); head != 0) {
    const uint32_t n = *Word(head, 2);
    uint32_t index = head;
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t next = *Word(index, 1);
      std::memset(static_cast<void*>(Word(index, 0)), 0, 3 * sizeof(uint32_t));
      cache.items[cache.count++] = At(index);
      index = next;
    }
    shared_free_.fetch_sub(n, std::memory_order_relaxed);
    return true;
  }
  // Carve fresh records (committed memory is zero-filled by the kernel).
  const uint64_t first = carved_.fetch_add(RecordCache::kBatch, std::memory_order_relaxed);
  const uint64_t end = std::min<uint64_t>(first + RecordCache::kBatch, reserved_records_);
  if (first >= end || !EnsureCommitted(end)) {
    exhausted_.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  for (uint64_t slot = first; slot < end; ++slot) {
    cache.items[cache.count++] = At(static_cast<uint32_t>(slot + 1));
  }
  const uint64_t outstanding = std::min(end, carved_.load(std::memory_order_relaxed)) -
                               std::min(end, shared_free_.load(std::memory_order_relaxed));
  uint64_t peak = peak_outstanding_.load(std::memory_order_relaxed);
  while (outstanding > peak &&
         !peak_outstanding_.compare_exchange_weak(peak, outstanding, std::memory_order_relaxed)) {
  }
  return true;
}

void RecordPool::Spill(RecordCache& cache, uint32_t n) {
  // Chain the top n cached records into one batch and push its head.
  const uint32_t first = cache.count - n;
  for (uint32_t i = first; i < cache.count; ++i) {
    const uint32_t index = IndexOf(cache.items[i]);
    *Word(index, 1) = (i + 1 < cache.count) ? IndexOf(cache.items[i + 1]) : 0;
    *Word(index, 2) = n;
  }
  shared_free_.fetch_add(n, std::memory_order_relaxed);
  free_batches_.Push(IndexOf(cache.items[first]));  // release: the chain is visible to the popper
  cache.count = first;
}

void RecordPool::Flush(RecordCache& cache) {
  while (cache.count > 0) Spill(cache, std::min(cache.count, RecordCache::kBatch));
}

RecordPoolStats RecordPool::Stats() const {
  RecordPoolStats s;
  s.record_size = record_size_;
  s.slab_bytes = kSlabBytes;
  s.slabs = committed_slabs_.load(std::memory_order_relaxed);
  s.carved = std::min<uint64_t>(carved_.load(std::memory_order_relaxed), reserved_records_);
  s.shared_free = std::min(s.carved, shared_free_.load(std::memory_order_relaxed));
  s.outstanding = s.carved - s.shared_free;
  s.peak_outstanding = std::max(s.outstanding, peak_outstanding_.load(std::memory_order_relaxed));
  s.exhausted = exhausted_.load(std::memory_order_relaxed);
  return s;
}

}  // namespace vtctx

namespace vtctx {

uint64_t ResidentBytesOf(const void* begin, size_t length) {
  if (begin == nullptr || length == 0) return 0;
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t pages = (length + page - 1) / page;
  std::vector<unsigned char> resident(pages);
  if (mincore(const_cast<void*>(begin), pages * page, resident.data()) != 0) return 0;
  uint64_t n = 0;
  for (unsigned char r : resident) n += r & 1;
  return n * page;
}

uint64_t RecordPool::ResidentBytes() const {
  return ResidentBytesOf(base_, committed_slabs_.load(std::memory_order_acquire) * kSlabBytes);
}

}  // namespace vtctx
