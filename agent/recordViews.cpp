#include "recordViews.h"

#include <algorithm>

#include "identityIndex.h"

namespace vtctx {
namespace {

std::atomic<uint64_t> g_awaiting{0};
constexpr uint64_t kSweepBatch = 4096;  // records per hold of the mutex
jweak g_sentinel = nullptr;             // the maintenance thread's only

jweak WeakOf(uint64_t holder) { return reinterpret_cast<jweak>(holder & ~kHolderThreadEnded); }

}  // namespace

jobject RecordView(JNIEnv* jni, RecordPool& pool, ThreadContextRecord* record) {
  std::atomic<uint64_t>& holder = pool.Holder(record);
  // Only the record's own thread calls this, and only while it lives (the end events run after
  // it): nobody else writes the word meanwhile.
  if (const uint64_t known = holder.load(std::memory_order_relaxed); known != 0) {
    if (jobject view = jni->NewLocalRef(WeakOf(known))) return view;
    // Collected while its thread lives (the shim dropped its cache): a new view replaces it.
    jni->DeleteWeakGlobalRef(WeakOf(known));
    holder.store(0, std::memory_order_relaxed);
  }
  jobject view = jni->NewDirectByteBuffer(record, static_cast<jlong>(pool.record_size()));
  jweak weak = view != nullptr ? jni->NewWeakGlobalRef(view) : nullptr;
  if (weak == nullptr) {
    jni->ExceptionClear();  // OutOfMemoryError: no view, the thread publishes nothing
    if (view != nullptr) jni->DeleteLocalRef(view);
    return nullptr;
  }
  // Release: a sweeper that sees the end flag later sees the reference too.
  holder.store(reinterpret_cast<uint64_t>(weak), std::memory_order_release);
  return view;
}

uint64_t RecordsAwaitingViews() { return g_awaiting.load(std::memory_order_relaxed); }

void NoteRecordAwaitingView() { g_awaiting.fetch_add(1, std::memory_order_relaxed); }

std::mutex& RecordViewMutex() {
  static std::mutex* mutex = new std::mutex();  // never destructed: threads run until exit
  return *mutex;
}

jobject LiveRecordView(JNIEnv* jni, RecordPool& pool, ThreadContextRecord* record) {
  const uint64_t holder = pool.Holder(record).load(std::memory_order_acquire);
  return holder != 0 ? jni->NewLocalRef(WeakOf(holder)) : nullptr;
}

bool CollectedSinceLastLook(JNIEnv* jni) {
  if (g_sentinel != nullptr && !jni->IsSameObject(g_sentinel, nullptr)) return false;
  if (g_sentinel != nullptr) jni->DeleteWeakGlobalRef(g_sentinel);
  g_sentinel = nullptr;
  jclass object_class = jni->FindClass("java/lang/Object");
  jobject sentinel = object_class ? jni->AllocObject(object_class) : nullptr;
  if (sentinel != nullptr) g_sentinel = jni->NewWeakGlobalRef(sentinel);
  if (jni->ExceptionCheck()) jni->ExceptionClear();  // no memory: look again next time
  if (sentinel != nullptr) jni->DeleteLocalRef(sentinel);
  if (object_class != nullptr) jni->DeleteLocalRef(object_class);
  return true;
}

uint64_t SweepRecordViews(JNIEnv* jni, RecordPool& pool, RecordCache& cache) {
  uint64_t returned = 0;
  for (uint64_t first = 0; first < pool.carved(); first += kSweepBatch) {
    std::lock_guard<std::mutex> lock(RecordViewMutex());
    pool.ForEachHeldIn(first, kSweepBatch, [&](ThreadContextRecord* record, uint64_t holder) {
      if ((holder & kHolderThreadEnded) == 0) return;  // its thread still runs
      jweak weak = WeakOf(holder);
      if (!jni->IsSameObject(weak, nullptr)) return;  // the view is still reachable
      // Under the mutex: neither an end event (it only sets the flag on a word that has none) nor
      // the identity channel (which looks under the mutex) writes this word meanwhile.
      pool.Holder(record).store(0, std::memory_order_relaxed);
      jni->DeleteWeakGlobalRef(weak);
      UnindexThreadRecord(pool, record);
      pool.Return(cache, record);
      ++returned;
    });
  }
  pool.Flush(cache);
  if (returned != 0) g_awaiting.fetch_sub(returned, std::memory_order_relaxed);
  return returned;
}

}  // namespace vtctx
