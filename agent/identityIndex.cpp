#include "identityIndex.h"

#include <atomic>
#include <mutex>
#include <unordered_map>

namespace vtctx {
namespace {

std::atomic<ThreadIndexWriter*> g_index{nullptr};
bool g_fault = false;
// fault=identity-index: the record entered last, which the next thread's entry names instead.
// The agent's own lookups go to the true map, so the fault misleads readers only (as a bug in the
// index would): threads keep writing their own records, readers read another's.
std::mutex g_fault_mutex;
const ThreadContextRecord* g_fault_previous = nullptr;
std::unordered_map<uint64_t, const ThreadContextRecord*>* g_fault_true_map = nullptr;

}  // namespace

bool CreateThreadIndex(Fault fault) {
  if (g_index.load(std::memory_order_acquire) != nullptr) return true;
  auto* index = new ThreadIndexWriter();  // never freed: readers read it until the process ends
  if (!index->ok()) {
    delete index;
    return false;
  }
  g_fault = fault == Fault::kIdentityIndex;
  if (g_fault) g_fault_true_map = new std::unordered_map<uint64_t, const ThreadContextRecord*>();
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
    (*g_fault_true_map)[thread_id] = record;
  }
  if (!index->Insert(thread_id, entered)) return false;
  pool.HolderThreadId(record).store(thread_id, std::memory_order_relaxed);
  return true;
}

const ThreadContextRecord* FindThreadRecord(uint64_t thread_id) {
  ThreadIndexWriter* index = AgentThreadIndex();
  if (index == nullptr) return nullptr;
  if (g_fault) {
    std::lock_guard<std::mutex> lock(g_fault_mutex);
    auto it = g_fault_true_map->find(thread_id);
    return it == g_fault_true_map->end() ? nullptr : it->second;
  }
  return static_cast<const ThreadContextRecord*>(index->Find(thread_id));
}

void UnindexThreadRecordSlow(uint64_t thread_id, ThreadContextRecord* record) {
  ThreadIndexWriter* index = AgentThreadIndex();
  if (index == nullptr) return;
  if (!index->Remove(thread_id, record) && g_fault) {
    // Entered under another record: remove whatever the id maps to.
    index->Remove(thread_id, index->Find(thread_id));
  }
  if (g_fault) {
    std::lock_guard<std::mutex> lock(g_fault_mutex);
    auto it = g_fault_true_map->find(thread_id);
    if (it != g_fault_true_map->end() && it->second == record) g_fault_true_map->erase(it);
  }
}

}  // namespace vtctx
