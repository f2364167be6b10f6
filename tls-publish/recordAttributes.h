// Attribute entries in an OTEP 4947 record's attrs-data: packed {key_index u8, length u8,
// value[length]} entries, UTF-8 values, key names from the process context's
// threadlocal.attribute_key_map (processContextPublisher.h). The entry format and the reader's
// rules: protocol/include/vtctx/attrsData.h.
//
// Writer rules kept here:
// - A key has at most one entry: setting a key removes its previous entry (entries after it move
//   up) and appends the new one. Readers let the LAST entry of a repeated key win, so even a reader
//   that somehow saw both would get the new value; keeping one entry saves space in small records.
// - Everything stays within the record: attrs-data never grows past record_size - 28 bytes and
//   attrs_data_size always covers whole entries (readers reject truncated entries).
// - A value longer than the room left (or than 255 bytes) is cut at a UTF-8 code point boundary.
// - Updates use the in-place protocol of recordWriter.h (valid=0, payload, valid restored), so a
//   reader interrupting the owning thread sees the old or the new attributes, never a mix. The
//   record's validity is left as it was: attributes alone never make a record valid.
//
// Call only from the thread that owns the record. Async-signal-safe, no locks, no allocation.
#ifndef VTCTX_TLS_PUBLISH_RECORD_ATTRIBUTES_H_
#define VTCTX_TLS_PUBLISH_RECORD_ATTRIBUTES_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "threadContextRecord.h"
#include "vtctx/attrsData.h"

namespace vtctx {

// Bytes of attrs-data a record of `record_size` bytes can hold.
constexpr size_t AttrsCapacity(size_t record_size) { return record_size - kRecordHeaderSize; }

// Sets `key_index` to `utf8_value` (must be valid UTF-8) in `record`, a record of `record_size`
// bytes. Returns the number of value bytes stored (less than utf8_value.size() when truncated), or
// -1 if not even an empty entry fits; the key's previous entry is removed in either case, so a
// stale value never survives a failed set.
int SetRecordAttribute(ThreadContextRecord* record, size_t record_size, uint8_t key_index,
                       std::string_view utf8_value);

// Removes the entry of `key_index`, if any. Returns true if one was removed.
bool RemoveRecordAttribute(ThreadContextRecord* record, size_t record_size, uint8_t key_index);

// Empties the record's attributes in one in-place rewrite; valid stays as it was.
void ClearRecordAttributes(ThreadContextRecord* record);

}  // namespace vtctx

#endif  // VTCTX_TLS_PUBLISH_RECORD_ATTRIBUTES_H_
