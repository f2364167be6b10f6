#include "recordPool.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <iterator>
#include <numeric>

namespace vtctx {
namespace {

// Commits [from, to) of a PROT_NONE reservation, widened to whole pages. Idempotent, so threads
// committing overlapping ranges concurrently are harmless.
bool CommitRange(char* base, size_t from, size_t to, size_t page) {
  if (to <= from) return true;
  const size_t begin = from / page * page;
  const size_t end = (to + page - 1) / page * page;
  return mprotect(base + begin, end - begin, PROT_READ | PROT_WRITE) == 0;
}

// Reserves `bytes` of address space aligned to `align`, neither readable nor charged to memory.
// Records are written one by one, scattered: 4 KiB pages keep a record's cost its own page rather
// than a 2 MiB huge page, and let a trim give back single pages.
char* Reserve(size_t bytes, size_t align) {
  void* p =
      mmap(nullptr, bytes + align, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  const uintptr_t raw = reinterpret_cast<uintptr_t>(p);
  const uintptr_t aligned = (raw + align - 1) & ~(uintptr_t{align} - 1);
  if (aligned > raw) munmap(p, aligned - raw);
  munmap(reinterpret_cast<void*>(aligned + bytes), raw + align - aligned);
  madvise(reinterpret_cast<void*>(aligned), bytes, MADV_NOHUGEPAGE);  // advisory: errors ignored
  return reinterpret_cast<char*>(aligned);
}

void RaiseTo(std::atomic<uint64_t>& max, uint64_t value) {
  uint64_t seen = max.load(std::memory_order_relaxed);
  while (value > seen && !max.compare_exchange_weak(seen, value, std::memory_order_relaxed)) {
  }
}

// Bytes of private pages in [begin, begin + length), from an open /proc/self/pagemap: one 64-bit
// entry per page, bit 63 present, bit 56 mapped exclusively (the shared zero page and pages shared
// with another process are not). 0 on error.
uint64_t PrivateBytes(int pagemap, const void* begin, size_t length) {
  if (begin == nullptr || length == 0) return 0;
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  constexpr uint64_t kPresent = uint64_t{1} << 63, kExclusive = uint64_t{1} << 56;
  const uint64_t first = reinterpret_cast<uintptr_t>(begin) / page;
  const uint64_t pages = (length + page - 1) / page;
  uint64_t entries[512];
  uint64_t resident = 0;
  for (uint64_t done = 0; done < pages;) {
    const uint64_t n = std::min<uint64_t>(pages - done, std::size(entries));
    const ssize_t got = pread(pagemap, entries, n * sizeof(uint64_t),
                              static_cast<off_t>((first + done) * sizeof(uint64_t)));
    if (got != static_cast<ssize_t>(n * sizeof(uint64_t))) return 0;
    for (uint64_t i = 0; i < n; ++i) {
      resident += (entries[i] & (kPresent | kExclusive)) == (kPresent | kExclusive);
    }
    done += n;
  }
  return resident * page;
}

}  // namespace

RecordPool::RecordPool(size_t record_size, size_t reserve_bytes)
    : record_size_(IsValidRecordSize(record_size) ? record_size : kRecordDefaultSize),
      records_per_slab_(kSlabBytes / record_size_),
      record_shift_(std::has_single_bit(record_size_) ? std::countr_zero(record_size_) : 0),
      page_size_(static_cast<size_t>(sysconf(_SC_PAGESIZE))) {
  // A chunk is the fewest records that fill whole pages; slabs are page-aligned, so chunks that
  // tile a slab from its start own their pages alone.
  chunk_records_ = std::lcm(record_size_, page_size_) / record_size_;
  chunks_per_slab_ = chunk_records_ <= 4096 ? records_per_slab_ / chunk_records_ : 0;
  // Whole slabs only; at most 2^32 - 1 records so that a 1-based index fits 32 bits.
  const size_t max_bytes = ((size_t{UINT32_MAX} - 1) * record_size_) / kSlabBytes * kSlabBytes;
  size_t want = std::min(std::max(reserve_bytes, kSlabBytes) / kSlabBytes * kSlabBytes, max_bytes);
  // Slabs are aligned to their size (the shim maps one Java buffer per slab-aligned window).
  for (; want >= kSlabBytes; want /= 2) {
    const uint64_t slabs = want / kSlabBytes;
    const size_t links_bytes =
        (slabs * records_per_slab_ * sizeof(FreeLink) + page_size_ - 1) / page_size_ * page_size_;
    const size_t side_bytes = 3 * links_bytes + slabs * chunks_per_slab_ * sizeof(uint32_t);
    char* base = Reserve(want, kSlabBytes);
    if (base == nullptr) continue;
    char* side = Reserve(side_bytes, page_size_);
    if (side == nullptr) {
      munmap(base, want);
      continue;
    }
    base_ = base;
    reserved_bytes_ = want;
    side_ = side;
    side_bytes_ = side_bytes;
    links_ = reinterpret_cast<FreeLink*>(side);
    holders_ = reinterpret_cast<std::atomic<uint64_t>*>(side + links_bytes);
    holder_ids_ = reinterpret_cast<std::atomic<uint64_t>*>(side + 2 * links_bytes);
    chunk_links_ = reinterpret_cast<uint32_t*>(side + 3 * links_bytes);
    break;
  }
  // Records never straddle a slab boundary: the tail of a slab that cannot hold a whole record
  // stays unused (see At()).
  reserved_records_ = base_ ? (reserved_bytes_ / kSlabBytes) * records_per_slab_ : 0;
}

RecordPool::~RecordPool() {
  if (base_ != nullptr) munmap(base_, reserved_bytes_);
  if (side_ != nullptr) munmap(side_, side_bytes_);
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
  // counted as committed only after its records' and its links' mprotect returned.
  const size_t link = sizeof(FreeLink) * records_per_slab_;
  const size_t chunk_link = sizeof(uint32_t) * chunks_per_slab_;
  const size_t chunk_links_offset = reinterpret_cast<char*>(chunk_links_) - side_;
  const size_t holders_offset = reinterpret_cast<char*>(holders_) - side_;
  const size_t ids_offset = reinterpret_cast<char*>(holder_ids_) - side_;
  if (!CommitRange(side_, have * link, need * link, page_size_) ||
      !CommitRange(side_, holders_offset + have * link, holders_offset + need * link, page_size_) ||
      !CommitRange(side_, ids_offset + have * link, ids_offset + need * link, page_size_) ||
      !CommitRange(side_, chunk_links_offset + have * chunk_link,
                   chunk_links_offset + need * chunk_link, page_size_) ||
      !CommitRange(base_, have * kSlabBytes, need * kSlabBytes, page_size_)) {
    return false;
  }
  while (have < need && !committed_slabs_.compare_exchange_weak(
                            have, need, std::memory_order_release, std::memory_order_acquire)) {
  }
  return true;
}

void RecordPool::TouchPages(const char* begin, size_t length) const {
  // A read maps the shared zero page (or keeps the page there is): present for BPF readers, not
  // dirty, not counted in RSS.
  const uintptr_t end = reinterpret_cast<uintptr_t>(begin) + length;
  for (uintptr_t p = reinterpret_cast<uintptr_t>(begin) & ~(uintptr_t{page_size_} - 1); p < end;
       p += page_size_) {
    (void)*reinterpret_cast<const volatile char*>(p);
  }
}

bool RecordPool::Refill(RecordCache& cache) {
  if (base_ == nullptr) return false;
  if (!PopBatch(cache) && !ReviveChunk(cache) && !Carve(cache)) return false;
  NotePeak();
  return true;
}

bool RecordPool::PopBatch(RecordCache& cache) {
  // Records in the stack were returned through Return(), which read or wrote them: their pages are
  // present, and a trim takes records out of the stack before it zaps their pages.
  const uint32_t head = free_batches_.Pop();
  if (head == 0) return false;
  uint32_t n = 0;
  for (uint32_t index = head; index != 0 && n < RecordCache::kBatch; index = Link(index).next) {
    cache.items[cache.count++] = At(index);
    ++n;
  }
  shared_free_.fetch_sub(n, std::memory_order_relaxed);
  return true;
}

uint32_t RecordPool::LinkBatches(uint64_t first_slot, uint64_t count, uint32_t* last_head) {
  uint32_t first_head = 0;
  uint32_t prev_head = 0;
  for (uint64_t b = 0; b < count; b += RecordCache::kBatch) {
    const uint64_t n = std::min<uint64_t>(RecordCache::kBatch, count - b);
    const auto head = static_cast<uint32_t>(first_slot + b + 1);
    for (uint64_t i = 0; i < n; ++i) {
      links_[first_slot + b + i].next = i + 1 < n ? static_cast<uint32_t>(head + i + 1) : 0;
    }
    if (prev_head != 0) {
      record_pool::StoreLink(Link(prev_head).next_batch, head);
    } else {
      first_head = head;
    }
    prev_head = head;
  }
  *last_head = prev_head;
  return first_head;
}

bool RecordPool::ReviveChunk(RecordCache& cache) {
  const uint32_t chunk = trimmed_chunks_.Pop();
  if (chunk == 0) return false;
  // The chunk was popped, so no trim holds it: its pages stay as they are until it is trimmed
  // again, which needs all its records back in the shared stack.
  const uint64_t first = Tiling().FirstSlot(chunk);
  TouchPages(reinterpret_cast<const char*>(At(static_cast<uint32_t>(first + 1))),
             chunk_records_ * record_size_);
  const uint64_t take = std::min<uint64_t>(RecordCache::kBatch, chunk_records_);
  for (uint64_t i = 0; i < take; ++i) {
    cache.items[cache.count++] = At(static_cast<uint32_t>(first + i + 1));
  }
  if (take < chunk_records_) {
    uint32_t last = 0;
    const uint32_t top = LinkBatches(first + take, chunk_records_ - take, &last);
    free_batches_.PushChain(top, last);
  }
  trimmed_records_.fetch_sub(chunk_records_, std::memory_order_relaxed);
  shared_free_.fetch_sub(take, std::memory_order_relaxed);
  return true;
}

bool RecordPool::Carve(RecordCache& cache) {
  // Fresh records: committed memory is zero-filled by the kernel.
  const uint64_t first = carved_.fetch_add(RecordCache::kBatch, std::memory_order_relaxed);
  const uint64_t end = std::min<uint64_t>(first + RecordCache::kBatch, reserved_records_);
  if (first >= end || !EnsureCommitted(end)) {
    exhausted_.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  for (uint64_t slot = first; slot < end; ++slot) {
    ThreadContextRecord* record = At(static_cast<uint32_t>(slot + 1));
    TouchPages(reinterpret_cast<const char*>(record), record_size_);
    cache.items[cache.count++] = record;
  }
  return true;
}

void RecordPool::NotePeak() {
  const uint64_t carved =
      std::min<uint64_t>(carved_.load(std::memory_order_relaxed), reserved_records_);
  const uint64_t outstanding =
      carved - std::min(carved, shared_free_.load(std::memory_order_relaxed));
  RaiseTo(peak_since_trim_, outstanding);
  RaiseTo(peak_outstanding_, outstanding);
}

void RecordPool::Spill(RecordCache& cache, uint32_t n) {
  // Chain the top n cached records into one batch and push its head. Links only: the records'
  // own memory is not written.
  const uint32_t first = cache.count - n;
  uint32_t next = 0;
  for (uint32_t i = cache.count; i-- > first;) {
    const uint32_t index = IndexOf(cache.items[i]);
    Link(index).next = next;
    next = index;
  }
  const uint64_t free = shared_free_.fetch_add(n, std::memory_order_relaxed) + n;
  free_batches_.Push(next);  // release: the chain is visible to the popper
  cache.count = first;
  // A trim needs kTrimMinIdleBytes of free records: a register compare filters most spills.
  if (free * record_size_ >= kTrimMinIdleBytes &&
      trim_requests_enabled_.load(std::memory_order_relaxed)) {
    MaybeRequestTrim();
  }
}

void RecordPool::Flush(RecordCache& cache) {
  while (cache.count > 0) Spill(cache, std::min(cache.count, RecordCache::kBatch));
}

bool RecordPool::TrimWanted() const {
  if (base_ == nullptr || chunks_per_slab_ == 0) return false;
  const uint64_t carved =
      std::min<uint64_t>(carved_.load(std::memory_order_relaxed), reserved_records_);
  const uint64_t free = std::min(carved, shared_free_.load(std::memory_order_relaxed));
  const uint64_t idle = free - std::min(free, trimmed_records_.load(std::memory_order_relaxed));
  return idle * record_size_ >= kTrimMinIdleBytes &&
         (carved - free) * kTrimPeakToLive <= peak_since_trim_.load(std::memory_order_relaxed);
}

void RecordPool::MaybeRequestTrim() {
  if (trim_requested_.load(std::memory_order_relaxed) != 0 || !TrimWanted()) return;
  trim_requested_.store(1, std::memory_order_release);
  trim_requested_.notify_one();
}

uint64_t RecordPool::TrimIfWanted() {
  trim_requested_.store(0, std::memory_order_relaxed);
  return TrimWanted() ? Trim() : 0;
}

uint64_t RecordPool::GiveBack(int pagemap, char* begin, size_t length) {
  // What is given back is what was private: pages only ever read hold the zero page, which costs
  // nothing.
  const uint64_t resident = pagemap >= 0 ? PrivateBytes(pagemap, begin, length) : length;
  return madvise(begin, length, MADV_DONTNEED) == 0 ? resident : 0;
}

uint64_t RecordPool::Trim() {
  if (base_ == nullptr || chunks_per_slab_ == 0) return 0;
  if (trimming_.exchange(true, std::memory_order_acquire)) return 0;
  const uint64_t carved =
      std::min<uint64_t>(carved_.load(std::memory_order_relaxed), reserved_records_);
  // The policy's window restarts here, whatever this trim finds.
  peak_since_trim_.store(carved - std::min(carved, shared_free_.load(std::memory_order_relaxed)),
                         std::memory_order_relaxed);
  // Chunks wholly below the carving frontier (trimmed chunks are among them: it only grows).
  const record_pool::ChunkTiling tiling = Tiling();
  const uint64_t chunks = tiling.ChunksBelow(carved);
  // One mark per chunk (recordPoolTrim.h). Scratch from mmap: no malloc, and a failure just skips
  // this trim.
  const size_t scratch_bytes = chunks * sizeof(uint16_t);
  void* scratch = chunks == 0 ? MAP_FAILED
                              : mmap(nullptr, scratch_bytes, PROT_READ | PROT_WRITE,
                                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (scratch == MAP_FAILED) {
    trimming_.store(false, std::memory_order_release);
    return 0;
  }
  uint16_t* mark = static_cast<uint16_t*>(scratch);

  // 1. Detach the shared stack (from here on no Take can reach these records) and count.
  const uint32_t top = free_batches_.PopAll();
  record_pool::CountFreePerChunk(links_, top, tiling, chunks, mark);
  // 2. Put back every record of a chunk that is not wholly free, rebatched.
  const record_pool::NodeChain kept =
      record_pool::RebatchPartlyFree(links_, top, tiling, chunks, mark, RecordCache::kBatch);
  if (kept.first != 0) free_batches_.PushChain(kept.first, kept.last);
  // 3. Every trimmed chunk is ours now: the wholly free ones (new) and, detached, the old ones.
  const uint64_t fresh = record_pool::MarkTrimmedChunks(chunk_links_, trimmed_chunks_.PopAll(),
                                                        chunks, chunk_records_, mark);
  // 4. Zap the new chunks' records, one madvise per run of adjacent chunks.
  const int pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  uint64_t given_back = 0;
  record_pool::ZapChunksTrimmedNow(
      mark, chunks, chunk_records_ * record_size_,
      [&](uint64_t c) {  // 0-based
        return reinterpret_cast<char*>(At(static_cast<uint32_t>(tiling.FirstSlot(c + 1) + 1)));
      },
      [&](char* begin, size_t length) { given_back += GiveBack(pagemap, begin, length); });
  // 5. Zap the link and holder pages that only trimmed chunks use. Both holder arrays have the
  // links' geometry (8 bytes per record): the same pages of each.
  static_assert(sizeof(FreeLink) == sizeof(std::atomic<uint64_t>));
  record_pool::ZapSidePagesOfTrimmedChunks(
      mark, chunks, tiling, page_size_, [&](size_t offset, size_t length) {
        given_back += GiveBack(pagemap, reinterpret_cast<char*>(links_) + offset, length);
        given_back += GiveBack(pagemap, reinterpret_cast<char*>(holders_) + offset, length);
        given_back += GiveBack(pagemap, reinterpret_cast<char*>(holder_ids_) + offset, length);
      });
  // 6. Give all trimmed chunks back, lowest first on top.
  const record_pool::NodeChain trimmed =
      record_pool::ChainTrimmedChunks(chunk_links_, chunks, mark);
  trimmed_records_.fetch_add(fresh * chunk_records_, std::memory_order_relaxed);
  if (trimmed.first != 0) trimmed_chunks_.PushChain(trimmed.first, trimmed.last);
  trimmed_bytes_.fetch_add(given_back, std::memory_order_relaxed);
  if (pagemap >= 0) close(pagemap);
  munmap(scratch, scratch_bytes);
  trimming_.store(false, std::memory_order_release);
  return given_back;
}

RecordPoolStats RecordPool::Stats() const {
  RecordPoolStats s;
  s.record_size = record_size_;
  s.slab_bytes = kSlabBytes;
  s.slabs = committed_slabs_.load(std::memory_order_relaxed);
  s.carved = std::min<uint64_t>(carved_.load(std::memory_order_relaxed), reserved_records_);
  s.shared_free = std::min(s.carved, shared_free_.load(std::memory_order_relaxed));
  s.trimmed = std::min(s.shared_free, trimmed_records_.load(std::memory_order_relaxed));
  s.outstanding = s.carved - s.shared_free;
  s.peak_outstanding = std::max(s.outstanding, peak_outstanding_.load(std::memory_order_relaxed));
  s.exhausted = exhausted_.load(std::memory_order_relaxed);
  s.trimmed_bytes = trimmed_bytes_.load(std::memory_order_relaxed);
  return s;
}

}  // namespace vtctx

namespace vtctx {

uint64_t ResidentBytesOf(const void* begin, size_t length) {
  const int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  const uint64_t bytes = PrivateBytes(fd, begin, length);
  close(fd);
  return bytes;
}

uint64_t RecordPool::ResidentBytes() const {
  const uint64_t slabs = committed_slabs_.load(std::memory_order_acquire);
  return ResidentBytesOf(base_, slabs * kSlabBytes) +
         ResidentBytesOf(side_, slabs * records_per_slab_ * sizeof(FreeLink)) +
         ResidentBytesOf(holders_, slabs * records_per_slab_ * sizeof(FreeLink)) +
         ResidentBytesOf(holder_ids_, slabs * records_per_slab_ * sizeof(FreeLink)) +
         ResidentBytesOf(chunk_links_, slabs * chunks_per_slab_ * sizeof(uint32_t));
}

}  // namespace vtctx
