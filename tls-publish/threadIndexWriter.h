// The writer of the identity channel's thread index (layout and lookup: vtctx/threadIndex.h):
// thread id -> record, read lock-free by out-of-process readers while this process changes it.
//
// Writers (a thread's first publish, the return of its record) serialise on one mutex: a few
// dozen nanoseconds once per publishing thread, never on a mount or a publish. Readers never
// lock: the header stays at one address for the life of the process; a table is rebuilt into a
// new mapping (load at most a half, tombstones included; at most VTCTX_INDEX_MAX_PROBE entries
// from an entry's home) and published with one store to header.table, after which the old one
// is unmapped (a reader still in it faults in a probe-read and reads no context, or sees the
// table pointer change and looks the thread up again in the new table: never another thread's
// record, vtctx/threadIndexLookup.h). Tables shrink again when threads end,
// so memory follows the live publishing threads, not every thread that ever published.
#ifndef VTCTX_TLS_PUBLISH_THREAD_INDEX_WRITER_H_
#define VTCTX_TLS_PUBLISH_THREAD_INDEX_WRITER_H_

#include <atomic>
#include <cstdint>
#include <mutex>

#include "vtctx/threadIndex.h"

namespace vtctx {

struct ThreadIndexStats {
  uint64_t live = 0;      // entries that map a thread
  uint64_t removed = 0;   // tombstones in the current table
  uint64_t capacity = 0;  // entries of the current table
  uint64_t rebuilds = 0;  // tables built since the start
  uint64_t bytes = 0;     // mapped bytes of the header and the current table
};

class ThreadIndexWriter {
 public:
  ThreadIndexWriter();
  ~ThreadIndexWriter();  // Unmaps everything. The agent's index is never destroyed.
  ThreadIndexWriter(const ThreadIndexWriter&) = delete;
  ThreadIndexWriter& operator=(const ThreadIndexWriter&) = delete;

  bool ok() const { return header_ != nullptr; }
  // The address readers start from (the process context's vtctx.identity.index).
  const vtctx_index_header* header() const { return header_; }

  // Maps `thread_id` to `record` (replacing its previous record, if any). `thread_id` must be a
  // thread id (vtctx_index_is_thread_id). False only if no memory could be mapped for a rebuild.
  bool Insert(uint64_t thread_id, const void* record);

  // Removes `thread_id`'s entry if it maps to `record`; true if it did. Once this returns, no
  // reader that validates its read (vtctx/threadIndex.h) takes `record` for `thread_id`.
  bool Remove(uint64_t thread_id, const void* record);

  // `thread_id`'s record, or null (under the mutex: a rebuild unmaps the table it replaces).
  const void* Find(uint64_t thread_id) const;

  ThreadIndexStats Stats() const;

 private:
  struct Table;

  static Table* MapTable(uint64_t capacity);
  static void UnmapTable(Table* table);
  // Places `thread_id` in `table` (no mutex: a table not yet published, or under mutex_). Returns
  // false if no free entry is within max_probe of its home.
  static bool Place(Table* table, uint64_t thread_id, uint64_t record);
  // A new table for the live entries (at least `min_capacity` entries) replaces the current one.
  bool Rebuild(uint64_t min_capacity);
  // `thread_id`'s entry in `table`, or null (under mutex_).
  static vtctx_index_entry* EntryLocked(Table* table, uint64_t thread_id);
  Table* Current() const;

  vtctx_index_header* header_ = nullptr;
  mutable std::mutex mutex_;
  uint64_t live_ = 0;     // under mutex_
  uint64_t removed_ = 0;  // under mutex_
  uint64_t rebuilds_ = 0;
};

}  // namespace vtctx

#endif  // VTCTX_TLS_PUBLISH_THREAD_INDEX_WRITER_H_
