// Protobuf wire format, read side: just enough to walk the OTEP 4719 payload without a protobuf
// runtime. Every read is bounds-checked against the bytes given; nothing is trusted. (The write
// side is tls-publish's ProtobufWriter, shared with the agent.)
//
// Rules (protobuf encoding spec): a field is a varint tag (field number << 3 | wire type) and a
// value; varints are at most 10 bytes and must fit 64 bits; field number 0 and numbers above
// 2^29 - 1 are invalid; wire types 0 (varint), 1 (8 bytes), 2 (length-delimited) and 5 (4 bytes)
// can be skipped; groups (3, 4) and the unused types 6, 7 are refused (no OTEP 4719 message has
// groups, and skipping them would need nesting bookkeeping for inputs no encoder produces).
#ifndef VTCTX_READER_PROTOBUF_WIRE_H_
#define VTCTX_READER_PROTOBUF_WIRE_H_

#include <cstddef>
#include <cstdint>
#include <span>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace vtctx::reader {

enum class WireType : uint8_t {
  kVarint = 0,
  kFixed64 = 1,
  kLengthDelimited = 2,
  kStartGroup = 3,
  kEndGroup = 4,
  kFixed32 = 5,
};

struct WireField {
  uint32_t number = 0;
  WireType type = WireType::kVarint;
  uint64_t varint = 0;             // kVarint
  uint64_t fixed = 0;              // kFixed64 / kFixed32 (host order, zero-extended)
  std::span<const uint8_t> bytes;  // kLengthDelimited: the field's bytes (inside the input)
};

// Walks the fields of one message, front to back.
class WireReader {
 public:
  explicit WireReader(std::span<const uint8_t> data) : data_(data) {}

  bool AtEnd() const { return pos_ == data_.size(); }
  size_t position() const { return pos_; }

  // Reads the next field (tag and value). InvalidArgument with the byte offset on malformed or
  // truncated input; the reader must not be used after an error.
  absl::Status Next(WireField& field);

 private:
  absl::Status Varint(uint64_t& out);
  absl::Status Error(absl::string_view what) const;

  std::span<const uint8_t> data_;
  size_t pos_ = 0;
};

}  // namespace vtctx::reader

#endif  // VTCTX_READER_PROTOBUF_WIRE_H_
