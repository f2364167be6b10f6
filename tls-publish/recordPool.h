// RecordPool: fixed-address OTEP 4947 records for many threads, without a global lock or malloc.
//
// Memory: one large PROT_NONE reservation made up front; 1 MiB slabs inside it are committed on
// demand and NEVER returned to the OS while the pool lives, so a record address stays mapped for
// the life of the process (a late reader can never fault on it). A record's index is its position
// in the reservation, which makes pointer <-> index conversion arithmetic.
//
// Concurrency: each thread owns a RecordCache (up to 2 batches of records). Take/Return touch only
// the caller's cache (fast path: a few instructions, no atomics). A cache refills or spills one
// batch at a time through a lock-free tagged stack of batches; when that is empty, fresh records
// are carved from the slabs with one fetch_add.
//
// Returned records are zeroed (valid=0, ids zero, no attributes) before anyone can take them again.
// The pool never knows who points at a record: callers return a record only when no published TLS
// pointer can still reach it (see agent/eventHandlers.cpp).
#ifndef VTCTX_TLS_PUBLISH_RECORD_POOL_H_
#define VTCTX_TLS_PUBLISH_RECORD_POOL_H_

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "taggedIndexStack.h"
#include "threadContextRecord.h"

namespace vtctx {

// Per-thread front of the pool. Owned and used by exactly one thread at a time; the counters are
// written only by that thread and may be read by any thread (relaxed) for statistics.
struct RecordCache {
  static constexpr uint32_t kBatch = 8;
  static constexpr uint32_t kCapacity = 2 * kBatch;

  uint32_t count = 0;
  ThreadContextRecord* items[kCapacity] = {};
  std::atomic<uint64_t> taken{0};
  std::atomic<uint64_t> returned{0};
};

struct RecordPoolStats {
  size_t record_size = 0;    // bytes per record
  uint64_t slabs = 0;        // committed slabs
  uint64_t slab_bytes = 0;   // bytes per slab
  uint64_t carved = 0;       // records ever carved from slabs
  uint64_t shared_free = 0;  // records in the shared stack
  uint64_t outstanding = 0;  // carved - shared_free: live records plus those in thread caches
  uint64_t peak_outstanding = 0;
  uint64_t exhausted = 0;  // Take() calls that found no memory
};

// Bytes of [begin, begin + length) resident in RAM (0 on error). Page-aligned begin required.
uint64_t ResidentBytesOf(const void* begin, size_t length);

class RecordPool {
 public:
  static constexpr size_t kSlabBytes = size_t{1} << 20;            // 1 MiB
  static constexpr size_t kDefaultReserveBytes = size_t{8} << 30;  // 8 GiB of address space

  // `record_size` must satisfy IsValidRecordSize(). If the reservation cannot be made, smaller
  // ones are tried; ok() is false only if none succeeds.
  explicit RecordPool(size_t record_size = kRecordDefaultSize,
                      size_t reserve_bytes = kDefaultReserveBytes);
  ~RecordPool();  // Unmaps everything. The agent's pool is never destroyed.
  RecordPool(const RecordPool&) = delete;
  RecordPool& operator=(const RecordPool&) = delete;

  bool ok() const { return base_ != nullptr; }
  size_t record_size() const { return record_size_; }

  // Returns a zeroed record, or nullptr if the reservation is used up. Async-signal-safe except
  // when it commits a new slab (an mprotect call, once per slab).
  ThreadContextRecord* Take(RecordCache& cache) {
    if (__builtin_expect(cache.count == 0, 0) && !Refill(cache)) return nullptr;
    Bump(cache.taken);
    return cache.items[--cache.count];
  }

  // Zeroes `record` and makes it available again. `record` must come from this pool.
  void Return(RecordCache& cache, ThreadContextRecord* record) {
    Zero(record);
    if (__builtin_expect(cache.count == RecordCache::kCapacity, 0))
      Spill(cache, RecordCache::kBatch);
    cache.items[cache.count++] = record;
    Bump(cache.returned);
  }

  // Moves every record held by `cache` to the shared stack (call before a cache's owner exits).
  void Flush(RecordCache& cache);

  bool Owns(const void* p) const { return p >= base_ && p < base_ + reserved_bytes_; }
  // The reservation: records are taken from its start upwards (freed ones are reused first).
  char* base() const { return base_; }
  size_t reserved_bytes() const { return reserved_bytes_; }

  RecordPoolStats Stats() const;

  // Bytes of committed slabs actually resident in RAM (mincore), i.e. what the records cost.
  uint64_t ResidentBytes() const;

 private:
  // Single-writer counter: the owning thread increments, others only read.
  static void Bump(std::atomic<uint64_t>& counter) {
    counter.store(counter.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }
  void Zero(ThreadContextRecord* record) const;
  bool Refill(RecordCache& cache);
  void Spill(RecordCache& cache, uint32_t n);
  bool EnsureCommitted(uint64_t end_record);

  // Slot k (0-based) lives in slab k / per_slab; index = k + 1 (0 means "none"). Power-of-two
  // sizes fill slabs exactly, so the arithmetic reduces to shifts (no divisions on spill/refill).
  ThreadContextRecord* At(uint32_t index) const {
    const uint64_t k = index - 1;
    if (record_shift_ != 0)
      return reinterpret_cast<ThreadContextRecord*>(base_ + (k << record_shift_));
    return reinterpret_cast<ThreadContextRecord*>(base_ + (k / records_per_slab_) * kSlabBytes +
                                                  (k % records_per_slab_) * record_size_);
  }
  uint32_t IndexOf(const ThreadContextRecord* r) const {
    const uint64_t off = static_cast<uint64_t>(reinterpret_cast<const char*>(r) - base_);
    if (record_shift_ != 0) return static_cast<uint32_t>((off >> record_shift_) + 1);
    return static_cast<uint32_t>((off / kSlabBytes) * records_per_slab_ +
                                 (off % kSlabBytes) / record_size_ + 1);
  }

  // Free-batch links live inside free records: word 0 = next batch (stack link), word 1 = next
  // record in this batch, word 2 = batch length. They are cleared again when the batch is taken.
  uint32_t* Word(uint32_t index, int word) const {
    return reinterpret_cast<uint32_t*>(At(index)) + word;
  }
  struct BatchLink {
    const RecordPool* pool;
    uint32_t& operator()(uint32_t index) const { return *pool->Word(index, 0); }
  };

  size_t record_size_;
  size_t records_per_slab_;
  unsigned record_shift_;  // log2(record_size_) if it is a power of two, else 0
  char* base_ = nullptr;
  size_t reserved_bytes_ = 0;
  uint64_t reserved_records_ = 0;

  TaggedIndexStack<BatchLink> free_batches_{BatchLink{this}};
  alignas(64) std::atomic<uint64_t> carved_{0};
  std::atomic<uint64_t> committed_slabs_{0};
  alignas(64) std::atomic<uint64_t> shared_free_{0};
  std::atomic<uint64_t> peak_outstanding_{0};
  std::atomic<uint64_t> exhausted_{0};
};

}  // namespace vtctx

#endif  // VTCTX_TLS_PUBLISH_RECORD_POOL_H_
