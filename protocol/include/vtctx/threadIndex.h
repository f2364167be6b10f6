/*
 * The identity channel's thread index: thread id -> record, in the writer's memory, read by
 * out-of-process readers (docs/protocol.md, "Identity channel"; golden vectors:
 * protocol/vectors/threadIndex.vec). Plain C, for the agent, the reader's user space and its BPF
 * programs, and the C fixtures.
 *
 * A reader that knows which Java thread an OS thread runs (HotSpot records it on the carrier:
 * JavaThread::_monitor_owner_id) finds that thread's OTEP 4947 record here, with no event at
 * mount or unmount. The process context names the index (attribute vtctx.identity.index: the
 * header's address in hex; vtctx.identity.layout: VTCTX_INDEX_LAYOUT).
 *
 * Header (VTCTX_INDEX_HEADER_SIZE bytes, at a fixed address for the life of the process):
 *   offset size field
 *   0      8    magic          VTCTX_INDEX_MAGIC
 *   8      4    layout         VTCTX_INDEX_LAYOUT
 *   12     4    reserved       0
 *   16     8    table          address of the current table (changes when the writer rebuilds it)
 *   24     8    generation     bumped with every table change (diagnostics)
 * Table:
 *   0      8    capacity       entries, a power of two >= VTCTX_INDEX_MIN_CAPACITY
 *   8      4    shift          64 - log2(capacity)
 *   12     4    max_probe      a lookup reads at most this many entries (<= VTCTX_INDEX_MAX_PROBE)
 *   16     16*capacity entries {thread_id u64, record u64}, host byte order
 *
 * Lookup of thread id T (T != 0, T != VTCTX_INDEX_REMOVED):
 *   home = (T * VTCTX_INDEX_HASH_MULTIPLIER mod 2^64) >> shift
 *   for i in 0 .. max_probe-1: e = entries[(home + i) & (capacity - 1)]
 *     e.thread_id == T                 -> found: e.record (0 = none)
 *     e.thread_id == VTCTX_INDEX_EMPTY -> not found
 *     otherwise (another id, or VTCTX_INDEX_REMOVED) -> next
 *   not found after max_probe entries.
 * Then read the record, and only then re-read header.table and the entry: if either changed the
 * record may belong to another thread by now (read as no context). This is exact because the
 * writer removes an entry (thread_id := REMOVED) before its record can be handed to another
 * thread, and stores an entry's record before its thread_id. Thread ids are never reused in a JVM.
 */
#ifndef VTCTX_THREAD_INDEX_H_
#define VTCTX_THREAD_INDEX_H_

#ifdef __bpf__
/* BPF programs get the fixed-width types from vmlinux.h. */
#else
#include <stdint.h>
#endif

/* "VTCTXIDX" as a little-endian u64. */
#define VTCTX_INDEX_MAGIC 0x5844495854435456ull
#define VTCTX_INDEX_LAYOUT 1
#define VTCTX_INDEX_HEADER_SIZE 32
#define VTCTX_INDEX_TABLE_HEADER_SIZE 16
#define VTCTX_INDEX_ENTRY_SIZE 16
#define VTCTX_INDEX_MIN_CAPACITY 1024
#define VTCTX_INDEX_MAX_PROBE 32
/* Fibonacci hashing: 2^64 / golden ratio, odd. */
#define VTCTX_INDEX_HASH_MULTIPLIER 0x9E3779B97F4A7C15ull
#define VTCTX_INDEX_EMPTY 0ull
#define VTCTX_INDEX_REMOVED 0xFFFFFFFFFFFFFFFFull

#define VTCTX_INDEX_OFFSET_MAGIC 0
#define VTCTX_INDEX_OFFSET_LAYOUT 8
#define VTCTX_INDEX_OFFSET_TABLE 16
#define VTCTX_INDEX_OFFSET_GENERATION 24
#define VTCTX_INDEX_TABLE_OFFSET_CAPACITY 0
#define VTCTX_INDEX_TABLE_OFFSET_SHIFT 8
#define VTCTX_INDEX_TABLE_OFFSET_MAX_PROBE 12

struct vtctx_index_header {
  uint64_t magic;
  uint32_t layout;
  uint32_t reserved;
  uint64_t table;
  uint64_t generation;
};

struct vtctx_index_table_header {
  uint64_t capacity;
  uint32_t shift;
  uint32_t max_probe;
};

struct vtctx_index_entry {
  uint64_t thread_id;
  uint64_t record;
};

/* The entry a lookup of `thread_id` reads first. */
static inline uint64_t vtctx_index_home(uint64_t thread_id, uint32_t shift) {
  return (thread_id * VTCTX_INDEX_HASH_MULTIPLIER) >> shift;
}

/* True for the ids an entry can hold for a thread. */
static inline int vtctx_index_is_thread_id(uint64_t thread_id) {
  return thread_id != VTCTX_INDEX_EMPTY && thread_id != VTCTX_INDEX_REMOVED;
}

#endif /* VTCTX_THREAD_INDEX_H_ */
