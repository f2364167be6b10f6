// The identity channel's lookup (vtctx/threadIndex.h) for user-space readers, over any memory
// reader: the reader's `resolve` and `verify` (another process's memory), the tests (vectors in a
// buffer, this process through process_vm_readv). The BPF programs implement the same steps
// (reader-bpf/commands/identityRead.bpf.h).
//
// `Read` is callable as bool(uint64_t address, void* out, size_t size): true when all `size`
// bytes were read.
#ifndef VTCTX_PROTOCOL_THREAD_INDEX_LOOKUP_H_
#define VTCTX_PROTOCOL_THREAD_INDEX_LOOKUP_H_

#include <cstddef>
#include <cstdint>

#include "vtctx/threadIndex.h"

namespace vtctx::protocol {

// Why a header cannot be used, or nullptr if it can.
inline const char* IndexHeaderProblem(const vtctx_index_header& header) {
  if (header.magic != VTCTX_INDEX_MAGIC) return "no thread index at that address (magic)";
  if (header.layout != VTCTX_INDEX_LAYOUT) return "thread index of an unknown layout";
  if (header.table == 0) return "thread index without a table";
  return nullptr;
}

// Why a table header cannot be used, or nullptr if it can.
inline const char* IndexTableProblem(const vtctx_index_table_header& table) {
  const uint64_t capacity = table.capacity;
  if (capacity == 0 || (capacity & (capacity - 1)) != 0) return "table capacity not a power of 2";
  if (table.shift == 0 || table.shift > 63 || (uint64_t{1} << (64 - table.shift)) != capacity) {
    return "table shift does not match its capacity";
  }
  if (table.max_probe == 0 || table.max_probe > VTCTX_INDEX_MAX_PROBE) {
    return "table probe bound out of range";
  }
  return nullptr;
}

enum class IndexOutcome {
  kFound,       // `record` is the thread's (validated when Confirm() says so)
  kNotFound,    // no entry: the thread has no record (it never published)
  kUnreadable,  // a read failed (unmapped, or a table replaced while it was read)
  kMalformed,   // the header or table is not a thread index of this layout
};

struct IndexHit {
  IndexOutcome outcome = IndexOutcome::kUnreadable;
  uint64_t record = 0;
  uint64_t table = 0;             // the table the entry was found in
  uint64_t entry = 0;             // the entry's address
  const char* problem = nullptr;  // kMalformed: why
};

template <typename Read>
IndexHit FindInIndex(Read&& read, uint64_t header_address, uint64_t thread_id) {
  IndexHit hit;
  vtctx_index_header header{};
  if (!read(header_address, &header, sizeof header)) return hit;
  if ((hit.problem = IndexHeaderProblem(header)) != nullptr) {
    hit.outcome = IndexOutcome::kMalformed;
    return hit;
  }
  vtctx_index_table_header table{};
  if (!read(header.table, &table, sizeof table)) return hit;
  if ((hit.problem = IndexTableProblem(table)) != nullptr) {
    hit.outcome = IndexOutcome::kMalformed;
    return hit;
  }
  hit.table = header.table;
  if (!vtctx_index_is_thread_id(thread_id)) {
    hit.outcome = IndexOutcome::kNotFound;
    return hit;
  }
  const uint64_t mask = table.capacity - 1;
  const uint64_t home = vtctx_index_home(thread_id, table.shift);
  for (uint32_t i = 0; i < table.max_probe; ++i) {
    const uint64_t address =
        header.table + VTCTX_INDEX_TABLE_HEADER_SIZE + ((home + i) & mask) * VTCTX_INDEX_ENTRY_SIZE;
    vtctx_index_entry entry{};
    if (!read(address, &entry, sizeof entry)) return hit;
    if (entry.thread_id == thread_id) {
      hit.outcome = entry.record != 0 ? IndexOutcome::kFound : IndexOutcome::kNotFound;
      hit.record = entry.record;
      hit.entry = address;
      return hit;
    }
    if (entry.thread_id == VTCTX_INDEX_EMPTY) break;
  }
  hit.outcome = IndexOutcome::kNotFound;
  return hit;
}

// After reading the record `hit` found: true if the index still maps the thread to it, i.e. what
// was read between the two is the thread's. In the same table, the entry must be unchanged; after
// a rebuild (a new table: the writer publishes one whenever threads come and go), the thread is
// looked up again in the new one. A thread's entry is removed only when it ends and its id is never
// entered again, so the same record under the same id is the thread's still.
template <typename Read>
bool ConfirmIndexHit(Read&& read, uint64_t header_address, uint64_t thread_id,
                     const IndexHit& hit) {
  uint64_t table = 0;
  vtctx_index_entry entry{};
  if (hit.outcome != IndexOutcome::kFound ||
      !read(header_address + VTCTX_INDEX_OFFSET_TABLE, &table, sizeof table)) {
    return false;
  }
  if (table == hit.table) {
    return read(hit.entry, &entry, sizeof entry) && entry.thread_id == thread_id &&
           entry.record == hit.record;
  }
  const IndexHit again = FindInIndex(read, header_address, thread_id);
  return again.outcome == IndexOutcome::kFound && again.record == hit.record;
}

}  // namespace vtctx::protocol

#endif  // VTCTX_PROTOCOL_THREAD_INDEX_LOOKUP_H_
