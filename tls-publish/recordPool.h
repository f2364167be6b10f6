// RecordPool: fixed-address OTEP 4947 records for many threads, without a global lock or malloc.
//
// Memory: one large PROT_NONE reservation made up front; 1 MiB slabs inside it are committed on
// demand and never unmapped while the pool lives, so a record address stays mapped for the life of
// the process (a late reader can never fault on it in user space). A record's index is its
// position in the reservation, which makes pointer <-> index conversion arithmetic.
//
// Concurrency: each thread owns a RecordCache (up to 2 batches of records). Take/Return touch only
// the caller's cache (fast path: a few instructions, no atomics). A cache refills or spills one
// batch at a time through a lock-free tagged stack of batches; when that is empty, trimmed chunks
// are revived, then fresh records are carved from the slabs with one fetch_add.
//
// Clean records stay clean: the free-batch links live in a side array (8 bytes per record,
// committed with its slab), Return zeroes only a record that is not all zero, and spill and refill
// never write a record. Every record a cache holds is on a present page (read-touched when carved
// or revived), so a BPF reader (bpf_probe_read_user, which cannot fault pages in) reads a record
// that holds no context as zeroes (valid=0), never as a fault.
//
// Trim gives the pages of idle records back to the OS (see Trim()). The pool never knows who points
// at a record: callers return a record only when no published TLS pointer can still reach it (see
// agent/handlerBodies.h).
#ifndef VTCTX_TLS_PUBLISH_RECORD_POOL_H_
#define VTCTX_TLS_PUBLISH_RECORD_POOL_H_

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "recordPoolTrim.h"
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
  uint64_t shared_free = 0;  // records in the shared stack and in trimmed chunks
  uint64_t trimmed = 0;      // of those, records in trimmed chunks (their pages given back)
  uint64_t outstanding = 0;  // carved - shared_free: live records plus those in thread caches
  uint64_t peak_outstanding = 0;
  uint64_t exhausted = 0;      // Take() calls that found no memory
  uint64_t trimmed_bytes = 0;  // private bytes of records and links given back to the OS, ever
};

// Bytes of [begin, begin + length) that are private pages in RAM (what RSS counts of it): present
// and mapped only here (/proc/self/pagemap). Pages only ever read map the shared zero page and do
// not count. 0 on error. Page-aligned begin required.
uint64_t ResidentBytesOf(const void* begin, size_t length);

class RecordPool {
 public:
  static constexpr size_t kSlabBytes = size_t{1} << 20;            // 1 MiB
  static constexpr size_t kDefaultReserveBytes = size_t{8} << 30;  // 8 GiB of address space
  // Trim policy (TrimWanted()): live records (outstanding) at most a quarter of their peak since
  // the last trim, and at least 2 MiB of free records still holding memory.
  static constexpr uint64_t kTrimPeakToLive = 4;
  static constexpr uint64_t kTrimMinIdleBytes = uint64_t{2} << 20;  // 2 MiB

  // `record_size` must satisfy IsValidRecordSize(). If the reservation cannot be made, smaller
  // ones are tried; ok() is false only if none succeeds.
  explicit RecordPool(size_t record_size = kRecordDefaultSize,
                      size_t reserve_bytes = kDefaultReserveBytes);
  ~RecordPool();  // Unmaps everything. The agent's pool is never destroyed.
  RecordPool(const RecordPool&) = delete;
  RecordPool& operator=(const RecordPool&) = delete;

  bool ok() const { return base_ != nullptr; }
  size_t record_size() const { return record_size_; }

  // Returns a zeroed record on a present page, or nullptr if the reservation is used up.
  // Async-signal-safe except when it commits a new slab (an mprotect call, once per slab).
  ThreadContextRecord* Take(RecordCache& cache) {
    if (__builtin_expect(cache.count == 0, 0) && !Refill(cache)) return nullptr;
    Bump(cache.taken);
    return cache.items[--cache.count];
  }

  // Makes `record` available again, zeroed; a record that is already all zero is not written, so
  // its page stays clean. `record` must come from this pool.
  void Return(RecordCache& cache, ThreadContextRecord* record) {
    if (!IsZero(record)) Zero(record);
    if (__builtin_expect(cache.count == RecordCache::kCapacity, 0))
      Spill(cache, RecordCache::kBatch);
    cache.items[cache.count++] = record;
    Bump(cache.returned);
  }

  // Moves every record held by `cache` to the shared stack (call before a cache's owner exits).
  void Flush(RecordCache& cache);

  // Gives the memory of idle records back to the OS: every chunk (the records on a run of whole
  // pages: one 4 KiB page of 64-byte records) whose records are all in the shared stack leaves the
  // stack and its pages are zapped with madvise(MADV_DONTNEED), as are the link pages that only
  // such chunks use. The mapping stays (a stale pointer still reads zeroes, never faults in user
  // space); a trimmed chunk is revived (read-touched, relinked) when the stack runs dry, before
  // fresh records are carved. Records in thread caches or taken are never touched: Trim works only
  // on records it has detached from the shared stack, which no Take can reach until it puts them
  // back. Returns the bytes given back. Slow (walks every free record; two detached stacks
  // meanwhile make concurrent refills carve fresh records): call it from a maintenance thread, not
  // an event. Concurrent calls: one trims, the others return 0.
  uint64_t Trim();

  // The trim policy (kTrimPeakToLive, kTrimMinIdleBytes). Cheap: a few relaxed loads.
  bool TrimWanted() const;

  // Trim requests, for one maintenance thread: after EnableTrimRequests(), a spill that finds
  // TrimWanted() wakes WaitForTrimRequest(); TrimIfWanted() clears the request and trims if the
  // policy still holds.
  void EnableTrimRequests() { trim_requests_enabled_.store(true, std::memory_order_relaxed); }
  void WaitForTrimRequest() const { trim_requested_.wait(0, std::memory_order_acquire); }
  bool TrimRequested() const { return trim_requested_.load(std::memory_order_acquire) != 0; }
  uint64_t TrimIfWanted();

  // A word beside each record for its holder's bookkeeping while the record is taken (the agent
  // keeps the Java view of a record there: agent/recordViews.h). Zero for a record that comes from
  // Take(); it must be zero again when the record is returned. Lives in the side reservation,
  // committed with the record's slab and given back with it by Trim().
  std::atomic<uint64_t>& Holder(const ThreadContextRecord* record) const {
    return holders_[IndexOf(record) - 1];
  }
  // A second such word: the id the holder knows the record's thread by (the agent's thread-index
  // key, vtctx/threadIndex.h), 0 if none. The same rules as Holder().
  std::atomic<uint64_t>& HolderThreadId(const ThreadContextRecord* record) const {
    return holder_ids_[IndexOf(record) - 1];
  }
  // Calls f(record, holder word value) for every record whose holder word is not zero, of the
  // `count` records carved from the `first` one on (in carving order). Reads only the side array
  // (a maintenance thread's sweep; concurrent Take/Return are fine).
  template <typename F>
  void ForEachHeldIn(uint64_t first, uint64_t count, F&& f) const {
    const uint64_t end = std::min(carved(), first + count);
    for (uint64_t k = first; k < end; ++k) {
      const uint64_t v = holders_[k].load(std::memory_order_acquire);
      if (v != 0) f(At(static_cast<uint32_t>(k + 1)), v);
    }
  }
  // Records carved so far (their holder words exist).
  uint64_t carved() const {
    return std::min<uint64_t>(carved_.load(std::memory_order_acquire), reserved_records_);
  }

  bool Owns(const void* p) const { return p >= base_ && p < base_ + reserved_bytes_; }
  // The reservation: records are taken from its start upwards (freed ones are reused first).
  char* base() const { return base_; }

  RecordPoolStats Stats() const;

  // Private bytes in RAM of the committed slabs and of their links (ResidentBytesOf()).
  uint64_t ResidentBytes() const;

 private:
  using FreeLink = record_pool::FreeLink;
  struct BatchLink {
    const RecordPool* pool;
    uint32_t& operator()(uint32_t index) const { return pool->Link(index).next_batch; }
  };
  struct ChunkLink {
    const RecordPool* pool;
    uint32_t& operator()(uint32_t chunk) const { return pool->chunk_links_[chunk - 1]; }
  };

  // Single-writer counter: the owning thread increments, others only read.
  static void Bump(std::atomic<uint64_t>& counter) {
    counter.store(counter.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }
  // Reads the whole record, one 64-byte line at a time (four 16-byte loads, no branch per word).
  bool IsZero(const ThreadContextRecord* record) const {
    const auto* bytes = reinterpret_cast<const unsigned char*>(record);
    if (record_size_ == kRecordDefaultSize) return IsZeroLine(bytes);
    for (size_t off = 0; off < record_size_; off += kRecordDefaultSize) {
      if (!IsZeroLine(bytes + off)) return false;
    }
    return true;
  }
  static bool IsZeroLine(const unsigned char* line) {
    using Words = uint64_t __attribute__((vector_size(16)));
    Words a, b, c, d;  // separate values, not an array: kept in registers
    std::memcpy(&a, line, 16);
    std::memcpy(&b, line + 16, 16);
    std::memcpy(&c, line + 32, 16);
    std::memcpy(&d, line + 48, 16);
    const Words any = (a | b) | (c | d);
    return (any[0] | any[1]) == 0;
  }
  void Zero(ThreadContextRecord* record) const;
  bool Refill(RecordCache& cache);
  bool PopBatch(RecordCache& cache);
  bool ReviveChunk(RecordCache& cache);
  bool Carve(RecordCache& cache);
  void NotePeak();
  void Spill(RecordCache& cache, uint32_t n);
  void MaybeRequestTrim();
  bool EnsureCommitted(uint64_t end_record);
  void TouchPages(const char* begin, size_t length) const;
  // Trim()'s madvise of [begin, begin + length): returns the private bytes given back
  // (ResidentBytesOf(), or `length` where /proc/self/pagemap could not be opened: pagemap < 0).
  static uint64_t GiveBack(int pagemap, char* begin, size_t length);
  uint32_t LinkBatches(uint64_t first_slot, uint64_t count, uint32_t* last_head);

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
  FreeLink& Link(uint32_t index) const { return links_[index - 1]; }

  // Chunk c (1-based) is the chunk_records_ records from Tiling().FirstSlot(c); chunks tile each
  // slab from its start (its last records may belong to none: they are never trimmed).
  record_pool::ChunkTiling Tiling() const {
    return {records_per_slab_, chunk_records_, chunks_per_slab_};
  }

  size_t record_size_;
  size_t records_per_slab_;
  unsigned record_shift_;  // log2(record_size_) if it is a power of two, else 0
  size_t page_size_;
  uint64_t chunk_records_ = 0;    // records per chunk: lcm(record size, page size) / record size
  uint64_t chunks_per_slab_ = 0;  // 0: chunks do not fit a slab, nothing is ever trimmed
  char* base_ = nullptr;
  size_t reserved_bytes_ = 0;
  uint64_t reserved_records_ = 0;
  // Side reservation: links_[reserved_records_], holders_[reserved_records_],
  // holder_ids_[reserved_records_] (the same page geometry: 8 bytes per record each), then
  // chunk_links_[reserved chunks]; committed with the slabs they describe.
  char* side_ = nullptr;
  size_t side_bytes_ = 0;
  FreeLink* links_ = nullptr;
  std::atomic<uint64_t>* holders_ = nullptr;
  std::atomic<uint64_t>* holder_ids_ = nullptr;
  uint32_t* chunk_links_ = nullptr;

  TaggedIndexStack<BatchLink> free_batches_{BatchLink{this}};
  TaggedIndexStack<ChunkLink> trimmed_chunks_{ChunkLink{this}};
  alignas(64) std::atomic<uint64_t> carved_{0};
  std::atomic<uint64_t> committed_slabs_{0};
  alignas(64) std::atomic<uint64_t> shared_free_{0};  // includes trimmed_records_
  std::atomic<uint64_t> trimmed_records_{0};
  std::atomic<uint64_t> peak_outstanding_{0};
  std::atomic<uint64_t> peak_since_trim_{0};
  std::atomic<uint64_t> exhausted_{0};
  alignas(64) std::atomic<bool> trimming_{false};
  std::atomic<bool> trim_requests_enabled_{false};
  std::atomic<uint32_t> trim_requested_{0};
  std::atomic<uint64_t> trimmed_bytes_{0};
};

}  // namespace vtctx

#endif  // VTCTX_TLS_PUBLISH_RECORD_POOL_H_
