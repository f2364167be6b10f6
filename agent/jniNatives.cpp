// JNI natives for the Java shim (class io.vtctx.internal.AgentNatives). HotSpot resolves native
// methods in agent libraries too, so the shim needs no System.loadLibrary: if the agent is not
// loaded, the first call throws UnsatisfiedLinkError, which the shim turns into "off".
//
// The declarations come from the header javac -h generates from AgentNatives.java at build time,
// and only they are exported (libvtctx.map is generated from it): a native renamed, added or
// retyped on one side fails the build (-Werror=missing-declarations, --no-undefined-version).
#include <jni.h>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>

#include "agentState.h"
#include "eventHandlers.h"
#include "io_vtctx_internal_AgentNatives.h"
#include "stats.h"
#include "threadAttributes.h"

namespace {

bool Active() {
  return vtctx::Agent().status.load(std::memory_order_acquire) == vtctx::AgentStatus::kActive;
}

}  // namespace

extern "C" {

// The calling thread's record address (virtual or platform thread), binding one on first use after
// a late attach; 0 if the agent is inactive or no record can be had. Stable for the thread's life.
JNIEXPORT jlong JNICALL Java_io_vtctx_internal_AgentNatives_currentRecord(JNIEnv* jni, jclass) {
  if (!Active()) return 0;
  return reinterpret_cast<jlong>(vtctx::CurrentThreadRecord(vtctx::Agent().jvmti, jni));
}

// A direct ByteBuffer over the calling thread's record (record_size bytes), or null. The shim
// caches it per thread and must not touch it after the thread ends (the record is recycled).
JNIEXPORT jobject JNICALL Java_io_vtctx_internal_AgentNatives_currentRecordBuffer(JNIEnv* jni,
                                                                                  jclass) {
  if (!Active()) return nullptr;
  void* record = vtctx::CurrentThreadRecord(vtctx::Agent().jvmti, jni);
  if (record == nullptr) return nullptr;
  return jni->NewDirectByteBuffer(record, static_cast<jlong>(vtctx::g_pool->record_size()));
}

// A direct ByteBuffer over the address window that holds `record`: from `record` rounded down to a
// multiple of 2^kRecordWindowShift, 2^kRecordWindowShift + VTCTX_RECORD_MAX_SIZE bytes long, so
// that every record starting in the window lies wholly inside it. Null if the agent is inactive or
// `record` is not one of the pool's records.
//
// Why: NewDirectByteBuffer costs ~0.2-0.3 us (a call from the VM into Java), which the shim would
// otherwise pay once per publishing thread (currentRecordBuffer). The shim asks for a window once
// per 1 MiB of record addresses, keeps it private and slices each thread's view out of it in Java.
// Only the slices are ever read or written; the rest of a window (other threads' records, memory
// that may not be mapped) is never touched.
constexpr int kRecordWindowShift = 20;  // io.vtctx.internal.RecordViews.WINDOW_SHIFT

JNIEXPORT jobject JNICALL Java_io_vtctx_internal_AgentNatives_recordWindow(JNIEnv* jni, jclass,
                                                                           jlong record) {
  if (!Active() || !vtctx::g_pool->Owns(reinterpret_cast<const void*>(record))) return nullptr;
  const uint64_t start = static_cast<uint64_t>(record) & ~((uint64_t{1} << kRecordWindowShift) - 1);
  return jni->NewDirectByteBuffer(reinterpret_cast<void*>(start),
                                  (jlong{1} << kRecordWindowShift) + VTCTX_RECORD_MAX_SIZE);
}

// A direct ByteBuffer over the start of the record pool: its first 2^k bytes, the largest power of
// two that fits the reservation and 2^30 (a ByteBuffer's capacity is an int); null if the agent
// is inactive. Records are taken from the pool's start upwards, so it holds every record in use
// until 2^30 bytes of them are (16M default-size records).
//
// Why: the shim writes the ids of every record it covers through one MemorySegment over this
// buffer, held in a static final field: C2 then folds the segment's bounds and liveness checks
// into constants and a write is the bare stores (see io.vtctx.internal.PoolSegment). The shim
// never exposes it and touches only the records of its own threads.
JNIEXPORT jobject JNICALL Java_io_vtctx_internal_AgentNatives_recordPoolWindow(JNIEnv* jni,
                                                                               jclass) {
  if (!Active()) return nullptr;
  const size_t span = std::bit_floor(std::min(vtctx::g_pool->reserved_bytes(), size_t{1} << 30));
  return jni->NewDirectByteBuffer(vtctx::g_pool->base(), static_cast<jlong>(span));
}

JNIEXPORT jint JNICALL Java_io_vtctx_internal_AgentNatives_recordSize(JNIEnv*, jclass) {
  return Active() ? static_cast<jint>(vtctx::g_pool->record_size()) : 0;
}

JNIEXPORT jboolean JNICALL Java_io_vtctx_internal_AgentNatives_isActive(JNIEnv*, jclass) {
  return Active() ? JNI_TRUE : JNI_FALSE;
}

// Attribute key index in the process context's key map, or -1 (see agent/threadAttributes.h).
JNIEXPORT jint JNICALL Java_io_vtctx_internal_AgentNatives_registerAttributeKey(JNIEnv* jni, jclass,
                                                                                jstring key) {
  return vtctx::RegisterAttributeKey(jni, key);
}

// Sets (or, with a null value, removes) one attribute of the calling thread's record; UTF-8 bytes
// stored or -1 (see agent/threadAttributes.h).
JNIEXPORT jint JNICALL Java_io_vtctx_internal_AgentNatives_setAttribute(JNIEnv* jni, jclass,
                                                                        jint key_index,
                                                                        jstring value) {
  return vtctx::SetThreadAttribute(jni, key_index, value);
}

// The agent's live counters as JSON (see agent/stats.h).
JNIEXPORT jstring JNICALL Java_io_vtctx_internal_AgentNatives_statsJson(JNIEnv* jni, jclass) {
  return jni->NewStringUTF(vtctx::StatsJson().c_str());
}

}  // extern "C"
