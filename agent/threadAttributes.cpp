#include "threadAttributes.h"

#include <algorithm>
#include <atomic>

#include "agentState.h"
#include "callingRecord.h"
#include "log.h"
#include "processContextInit.h"
#include "processContextPublisher.h"
#include "recordAttributes.h"
#include "vtctx/utf8.h"
#include "writerWatch.h"

namespace vtctx {
namespace {

// Reasons a native returns -1, each logged the first time only (callers may retry in a loop).
enum Reason {
  kInactive,
  kNoContext,
  kNullKey,
  kBadIndex,
  kNoRecord,
  kNoRoom,
  kJniException,
  kKeyErrorBase,  // + static_cast<int>(KeyError)
  kReasonCount = kKeyErrorBase + 16,
};
static_assert(static_cast<int>(KeyError::kNoMemory) < kReasonCount - kKeyErrorBase);
std::atomic<bool> g_logged[kReasonCount];

bool FirstTime(int reason) { return !g_logged[reason].exchange(true, std::memory_order_relaxed); }

// Clears an exception a JNI call left pending (we must not throw into Java). True if there was one.
bool ClearedException(JNIEnv* jni) {
  if (!jni->ExceptionCheck()) return false;
  jni->ExceptionClear();
  if (FirstTime(kJniException)) LogError("a JNI string call failed in an attribute native");
  return true;
}

}  // namespace

jint RegisterAttributeKey(JNIEnv* jni, jstring key) {
  if (!AgentActive()) {
    if (FirstTime(kInactive)) LogError("registerAttributeKey: the agent is not active");
    return -1;
  }
  if (AttributesDisabled()) return -1;  // another writer shares the process (writerWatch.h)
  ProcessContextPublisher* context = PublishedProcessContext();
  if (context == nullptr) {
    if (FirstTime(kNoContext)) {
      LogError("registerAttributeKey: no process context was published, keys have no names");
    }
    return -1;
  }
  if (key == nullptr) {
    if (FirstTime(kNullKey)) LogError("registerAttributeKey: null key");
    return -1;
  }
  // A key has at most 255 UTF-8 bytes, so at most 255 UTF-16 units: read that many plus one to
  // tell a longer key apart. No allocation.
  const jsize length = jni->GetStringLength(key);
  jchar units[kMaxAttributeKeySize + 1];
  const jsize n = std::min<jsize>(length, kMaxAttributeKeySize + 1);
  jni->GetStringRegion(key, 0, n, units);
  if (ClearedException(jni)) return -1;
  char utf8[kMaxAttributeKeySize];
  const Utf16ToUtf8Result converted =
      Utf16ToUtf8(units, static_cast<size_t>(n), n < length, utf8, sizeof utf8);
  KeyError error = KeyError::kTooLong;
  ProcessContextPublisher::KeyResult result{-1, KeyError::kTooLong};
  if (converted.complete) {
    result = context->RegisterKey(std::string_view(utf8, converted.bytes));
    error = result.error;
  }
  if (error != KeyError::kNone) {
    if (FirstTime(kKeyErrorBase + static_cast<int>(error))) {
      const size_t shown = Utf8PrefixLength(std::string_view(utf8, converted.bytes), 40);
      LogError("registerAttributeKey('%.*s%s'): %s", static_cast<int>(shown), utf8,
               shown < converted.bytes ? "..." : "", Describe(error));
    }
    return -1;
  }
  return result.index;
}

jint SetThreadAttribute(JNIEnv* jni, jint key_index, jstring value) {
  if (!AgentActive()) {
    if (FirstTime(kInactive)) LogError("setAttribute: the agent is not active");
    return -1;
  }
  ProcessContextPublisher* context = PublishedProcessContext();
  // Only indexes whose names every reader can already see may appear in a record.
  if (context == nullptr || key_index < 0 ||
      static_cast<size_t>(key_index) >= context->key_count()) {
    if (FirstTime(kBadIndex)) {
      LogError("setAttribute: key index %d is not registered (use registerAttributeKey)",
               static_cast<int>(key_index));
    }
    return -1;
  }
  // The view held until the native returns keeps the record this thread's (callingRecord.h).
  const CallingRecord calling = CallingThreadRecord(jni);
  ThreadContextRecord* record = calling.record;
  if (record == nullptr) {
    if (FirstTime(kNoRecord)) LogError("setAttribute: this thread has no record");
    return -1;
  }
  if (AttributesDisabled()) {  // no attribute a reader could misname (writerWatch.h)
    ClearRecordAttributes(record);
    return -1;
  }
  const size_t record_size = g_pool->record_size();
  const uint8_t index = static_cast<uint8_t>(key_index);
  if (value == nullptr) {
    RemoveRecordAttribute(record, record_size, index);
    return 0;
  }
  // At most 255 value bytes can be stored and every UTF-16 unit takes at least one byte: 255 units
  // are always enough. A surrogate pair cut by that window is left out, never split.
  const jsize length = jni->GetStringLength(value);
  jchar units[kMaxAttributeValueSize];
  const jsize n = std::min<jsize>(length, kMaxAttributeValueSize);
  jni->GetStringRegion(value, 0, n, units);
  if (ClearedException(jni)) return -1;
  char utf8[kMaxAttributeValueSize];
  const Utf16ToUtf8Result converted =
      Utf16ToUtf8(units, static_cast<size_t>(n), n < length, utf8, sizeof utf8);
  const int stored =
      SetRecordAttribute(record, record_size, index, std::string_view(utf8, converted.bytes));
  if (stored < 0 && FirstTime(kNoRoom)) {
    LogInfo(
        "setAttribute: a %zu-byte record has no room left for attribute %d (record_size=%zu "
        "allows more)",
        record_size, static_cast<int>(key_index), kRecordMaxSize);
  }
  return stored;
}

}  // namespace vtctx
