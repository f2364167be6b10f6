#include "identityIndex.h"

#include <atomic>
#include <mutex>

namespace vtctx {
namespace {

std::atomic<ThreadIndexWriter*> g_index{nullptr};
bool g_fault = false;
// fault=identity-index: the record entered last, which the next thread's entry names instead.
std::mutex g_fault_mutex;
const ThreadContextRecord* g_fault_previous = nullptr;

}  // namespace

bool CreateThreadIndex(Fault fault) {
  if (g_index.load(std::memory_order_acquire) != nullptr) return true;
  auto* index = new ThreadIndexWriter();  // never freed: readers read it until the process ends
  if (!index->ok()) {
    delete index;
    return false;
  }
  g_fault = fault == Fault::kIdentityIndex;
  g_index.store(index, std::memory_order_release);
  return true;
}

ThreadIndexWriter* AgentThreadIndex() { return g_index.load(std::memory_order_acquire); }

bool IndexThreadRecord(RecordPool& pool, uint64_t thread_id, ThreadContextRecord* record) {
  ThreadIndexWriter* index = AgentThreadIndex();
  if (index == nullptr) return false;
  const ThreadContextRecord* entered = record;
  if (g_fault) {
    std::lock_guard<std::mutex> lock(g_fault_mutex);
    if (g_fault_previous != nullptr) entered = g_fault_previous;
    g_fault_previous = record;
  }
  if (!index->Insert(thread_id, entered)) return false;
  pool.HolderThreadId(record).store(thread_id, std::memory_order_relaxed);
  return true;
}

void UnindexThreadRecordSlow(uint64_t thread_id, ThreadContextRecord* record) {
  ThreadIndexWriter* index = AgentThreadIndex();
  if (index == nullptr) return;
  if (!index->Remove(thread_id, record) && g_fault) {
    // Entered under another record: remove whatever the id maps to.
    index->Remove(thread_id, index->Find(thread_id));
  }
}

}  // namespace vtctx
