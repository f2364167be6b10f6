// The attrs-data rules of an OTEP 4947 record (docs/protocol.md), the one C++ implementation for
// the writer (tls-publish/recordAttributes.cpp) and the reader (reader-bpf/target/recordFormat.cpp,
// attributeNames.cpp). Tested against protocol/vectors/records.vec.
//
// attrs-data (at record offset 28, attrs_data_size bytes) is a packed sequence of entries
// {key_index u8, length u8, value[length]}; the value is UTF-8. A reader stops at the first entry
// that does not fit in attrs_data_size (a truncated entry is no attribute, and nothing after it
// is read); a key index present twice means the LAST entry wins.
//
// Pure, allocation-free and async-signal-safe.
#ifndef VTCTX_PROTOCOL_ATTRS_DATA_H_
#define VTCTX_PROTOCOL_ATTRS_DATA_H_

#include <cstddef>
#include <cstdint>

namespace vtctx {

inline constexpr size_t kAttributeEntryHeaderSize = 2;  // key_index u8 + length u8
inline constexpr size_t kMaxAttributeValueSize = 255;   // bytes (the length field is a u8)

// Calls `visit(key_index, offset, entry_size)` for each complete entry of data[0..used), in
// order (`offset` is where the entry starts, `entry_size` includes its 2-byte header), and returns
// the bytes those entries cover: `used` unless a truncated entry ends the walk. Each entry's size
// is read before `visit` runs, so `visit` may move the current entry towards the start of `data`
// (a compaction) without disturbing the walk.
template <typename Visit>
constexpr size_t ForEachAttrsEntry(const uint8_t* data, size_t used, Visit&& visit) {
  size_t pos = 0;
  while (used - pos >= kAttributeEntryHeaderSize) {
    const size_t entry = kAttributeEntryHeaderSize + data[pos + 1];
    if (entry > used - pos) break;  // truncated entry: it and everything after it are ignored
    visit(data[pos], pos, entry);
    pos += entry;
  }
  return pos;
}

}  // namespace vtctx

#endif  // VTCTX_PROTOCOL_ATTRS_DATA_H_
