#include "threadIndexWriter.h"

#include <sys/mman.h>

#include <algorithm>
#include <bit>
#include <cstddef>

namespace vtctx {

// The mapped table: its header, then the entries (vtctx/threadIndex.h). Entry words are accessed
// through std::atomic_ref: readers in other processes read them while this process writes.
struct ThreadIndexWriter::Table {
  vtctx_index_table_header head;
  vtctx_index_entry entries[];  // capacity entries
};

namespace {

size_t TableBytes(uint64_t capacity) {
  return VTCTX_INDEX_TABLE_HEADER_SIZE + capacity * VTCTX_INDEX_ENTRY_SIZE;
}

std::atomic_ref<uint64_t> Word(uint64_t& word) { return std::atomic_ref<uint64_t>(word); }
std::atomic_ref<const uint64_t> Word(const uint64_t& word) {
  return std::atomic_ref<const uint64_t>(word);
}

// The smallest power of two >= max(n, VTCTX_INDEX_MIN_CAPACITY).
uint64_t CapacityFor(uint64_t n) {
  return std::bit_ceil(std::max<uint64_t>(n, VTCTX_INDEX_MIN_CAPACITY));
}

}  // namespace

ThreadIndexWriter::ThreadIndexWriter() {
  void* page = mmap(nullptr, VTCTX_INDEX_HEADER_SIZE, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) return;
  Table* table = MapTable(VTCTX_INDEX_MIN_CAPACITY);
  if (table == nullptr) {
    munmap(page, VTCTX_INDEX_HEADER_SIZE);
    return;
  }
  header_ = static_cast<vtctx_index_header*>(page);
  header_->layout = VTCTX_INDEX_LAYOUT;
  header_->table = reinterpret_cast<uint64_t>(table);
  // Magic last: a reader that finds it finds a complete header.
  Word(header_->magic).store(VTCTX_INDEX_MAGIC, std::memory_order_release);
}

ThreadIndexWriter::~ThreadIndexWriter() {
  if (header_ == nullptr) return;
  UnmapTable(Current());
  munmap(header_, VTCTX_INDEX_HEADER_SIZE);
}

ThreadIndexWriter::Table* ThreadIndexWriter::MapTable(uint64_t capacity) {
  // Anonymous memory is zero: every entry starts VTCTX_INDEX_EMPTY.
  void* p = mmap(nullptr, TableBytes(capacity), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                 -1, 0);
  if (p == MAP_FAILED) return nullptr;
  auto* table = static_cast<Table*>(p);
  table->head.capacity = capacity;
  table->head.shift = static_cast<uint32_t>(64 - std::countr_zero(capacity));
  table->head.max_probe = VTCTX_INDEX_MAX_PROBE;
  return table;
}

void ThreadIndexWriter::UnmapTable(Table* table) {
  if (table != nullptr) munmap(table, TableBytes(table->head.capacity));
}

ThreadIndexWriter::Table* ThreadIndexWriter::Current() const {
  return reinterpret_cast<Table*>(Word(header_->table).load(std::memory_order_acquire));
}

bool ThreadIndexWriter::Place(Table* table, uint64_t thread_id, uint64_t record) {
  const uint64_t mask = table->head.capacity - 1;
  const uint64_t home = vtctx_index_home(thread_id, table->head.shift);
  vtctx_index_entry* free = nullptr;
  for (uint32_t i = 0; i < table->head.max_probe; ++i) {
    vtctx_index_entry& e = table->entries[(home + i) & mask];
    const uint64_t id = Word(e.thread_id).load(std::memory_order_relaxed);
    if (id == thread_id) {  // the same thread's new record
      Word(e.record).store(record, std::memory_order_release);
      return true;
    }
    if (id == VTCTX_INDEX_REMOVED && free == nullptr) free = &e;
    if (id == VTCTX_INDEX_EMPTY) {
      if (free == nullptr) free = &e;
      break;  // the id is not further on
    }
  }
  if (free == nullptr) return false;
  // The record before the id: a reader that matches the id reads this record (or, if the entry
  // is reused meanwhile, sees the id change when it re-reads the entry).
  Word(free->record).store(record, std::memory_order_relaxed);
  Word(free->thread_id).store(thread_id, std::memory_order_release);
  return true;
}

bool ThreadIndexWriter::Rebuild(uint64_t min_capacity) {
  Table* old = Current();
  for (uint64_t capacity = CapacityFor(min_capacity);; capacity *= 2) {
    Table* table = MapTable(capacity);
    if (table == nullptr) return false;
    bool placed = true;
    for (uint64_t k = 0; k < old->head.capacity && placed; ++k) {
      const vtctx_index_entry& e = old->entries[k];
      if (vtctx_index_is_thread_id(e.thread_id)) placed = Place(table, e.thread_id, e.record);
    }
    if (!placed) {  // a probe run too long for this size (practically never at load <= 1/4)
      UnmapTable(table);
      continue;
    }
    Word(header_->table).store(reinterpret_cast<uint64_t>(table), std::memory_order_release);
    Word(header_->generation).fetch_add(1, std::memory_order_release);
    UnmapTable(old);
    removed_ = 0;
    ++rebuilds_;
    return true;
  }
}

bool ThreadIndexWriter::Insert(uint64_t thread_id, const void* record) {
  if (!ok() || !vtctx_index_is_thread_id(thread_id)) return false;
  const auto value = reinterpret_cast<uint64_t>(record);
  std::lock_guard<std::mutex> lock(mutex_);
  Table* table = Current();
  const bool known = EntryLocked(table, thread_id) != nullptr;
  // Load (tombstones included) stays at most a half; a rebuild leaves at most a quarter.
  if (!known && 2 * (live_ + removed_ + 1) > table->head.capacity) {
    if (!Rebuild(4 * (live_ + 1))) return false;
    table = Current();
  }
  while (!Place(table, thread_id, value)) {
    if (!Rebuild(2 * table->head.capacity)) return false;
    table = Current();
  }
  if (!known) ++live_;
  return true;
}

bool ThreadIndexWriter::Remove(uint64_t thread_id, const void* record) {
  if (!ok() || !vtctx_index_is_thread_id(thread_id)) return false;
  std::lock_guard<std::mutex> lock(mutex_);
  Table* table = Current();
  vtctx_index_entry* e = EntryLocked(table, thread_id);
  if (e == nullptr) return false;
  if (Word(e->record).load(std::memory_order_relaxed) != reinterpret_cast<uint64_t>(record)) {
    return false;
  }
  // Release: the caller hands the record on after this; a reader that sees the record's next
  // owner's writes sees this store when it re-reads the entry.
  Word(e->thread_id).store(VTCTX_INDEX_REMOVED, std::memory_order_release);
  --live_;
  ++removed_;
  // Shrink once the table is 16 times too big for what is left (memory follows the live threads).
  if (table->head.capacity > VTCTX_INDEX_MIN_CAPACITY && 16 * live_ < table->head.capacity) {
    Rebuild(4 * (live_ + 1));  // on failure the current table stays, which is still correct
  }
  return true;
}

const void* ThreadIndexWriter::Find(uint64_t thread_id) const {
  if (!ok() || !vtctx_index_is_thread_id(thread_id)) return nullptr;
  std::lock_guard<std::mutex> lock(mutex_);
  const vtctx_index_entry* e = EntryLocked(Current(), thread_id);
  if (e == nullptr) return nullptr;
  return reinterpret_cast<const void*>(Word(e->record).load(std::memory_order_acquire));
}

vtctx_index_entry* ThreadIndexWriter::EntryLocked(Table* table, uint64_t thread_id) {
  const uint64_t mask = table->head.capacity - 1;
  const uint64_t home = vtctx_index_home(thread_id, table->head.shift);
  for (uint32_t i = 0; i < table->head.max_probe; ++i) {
    vtctx_index_entry& e = table->entries[(home + i) & mask];
    const uint64_t id = Word(e.thread_id).load(std::memory_order_acquire);
    if (id == thread_id) return &e;
    if (id == VTCTX_INDEX_EMPTY) return nullptr;  // the id is not further on
  }
  return nullptr;
}

ThreadIndexStats ThreadIndexWriter::Stats() const {
  ThreadIndexStats stats;
  if (!ok()) return stats;
  std::lock_guard<std::mutex> lock(mutex_);
  stats.live = live_;
  stats.removed = removed_;
  stats.capacity = Current()->head.capacity;
  stats.rebuilds = rebuilds_;
  stats.bytes = VTCTX_INDEX_HEADER_SIZE + TableBytes(stats.capacity);
  return stats;
}

}  // namespace vtctx
