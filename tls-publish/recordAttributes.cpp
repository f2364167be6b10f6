#include "recordAttributes.h"

#include <algorithm>
#include <atomic>
#include <cstring>

#include "recordWriter.h"
#include "vtctx/utf8.h"

namespace vtctx {
namespace {

uint8_t* AttrsData(ThreadContextRecord* record) {
  // attrs-data extends past the struct's declared array up to the pool's record size.
  return reinterpret_cast<uint8_t*>(record) + kRecordHeaderSize;
}

// Drops every entry of `key_index` (and a truncated tail, which no reader could use) from
// data[0..used), moving later entries up. Returns the new used size.
size_t CompactWithout(uint8_t* data, size_t used, int key_index) {
  size_t w = 0;
  ForEachAttrsEntry(data, used, [&](uint8_t key, size_t r, size_t entry) {
    if (key == key_index) return;
    if (w != r) std::memmove(data + w, data + r, entry);  // w <= r: moves towards the start
    w += entry;
  });
  return w;
}

bool WasValid(ThreadContextRecord* record) {
  return std::atomic_ref<uint8_t>(record->valid).load(std::memory_order_relaxed) ==
         VTCTX_RECORD_VALID;
}

}  // namespace

int SetRecordAttribute(ThreadContextRecord* record, size_t record_size, uint8_t key_index,
                       std::string_view utf8_value) {
  const size_t capacity = AttrsCapacity(record_size);
  const bool was_valid = WasValid(record);
  int stored = -1;
  RewriteInPlace(record, [&](ThreadContextRecord& r) {
    uint8_t* data = AttrsData(&r);
    size_t used = CompactWithout(data, std::min<size_t>(r.attrs_data_size, capacity), key_index);
    if (capacity - used >= kAttributeEntryHeaderSize) {
      const size_t room =
          std::min(kMaxAttributeValueSize, capacity - used - kAttributeEntryHeaderSize);
      const size_t n = Utf8PrefixLength(utf8_value, room);
      data[used] = key_index;
      data[used + 1] = static_cast<uint8_t>(n);
      std::memcpy(data + used + kAttributeEntryHeaderSize, utf8_value.data(), n);
      used += kAttributeEntryHeaderSize + n;
      stored = static_cast<int>(n);
    }
    r.attrs_data_size = static_cast<uint16_t>(used);
    return was_valid;
  });
  return stored;
}

bool RemoveRecordAttribute(ThreadContextRecord* record, size_t record_size, uint8_t key_index) {
  const size_t capacity = AttrsCapacity(record_size);
  const bool was_valid = WasValid(record);
  bool removed = false;
  RewriteInPlace(record, [&](ThreadContextRecord& r) {
    const size_t before = std::min<size_t>(r.attrs_data_size, capacity);
    const size_t after = CompactWithout(AttrsData(&r), before, key_index);
    removed = after != before;  // (also true if a truncated tail was dropped)
    r.attrs_data_size = static_cast<uint16_t>(after);
    return was_valid;
  });
  return removed;
}

void ClearRecordAttributes(ThreadContextRecord* record) {
  const bool was_valid = WasValid(record);
  RewriteInPlace(record, [&](ThreadContextRecord& r) {
    r.attrs_data_size = 0;
    return was_valid;
  });
}

}  // namespace vtctx
