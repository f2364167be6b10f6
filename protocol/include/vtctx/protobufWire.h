// The protobuf wire format, both directions, without a protobuf runtime: the agent encodes the
// OTEP 4719 payload with it inside the JVM, vtctx-reader decodes that payload and encodes pprof's
// profile.proto. Header-only and exception-free, so the in-JVM code and the reader share it.
//
// Encoding: length-delimited fields, varints and packed varints; nested messages bottom-up (encode
// the inner message into its own writer, embed it with Message()). Every length prefix is a
// minimal varint, as any protobuf encoder writes it. The writer remembers the largest length
// prefix it wrote so callers can enforce reader limits (some readers accept at most two-byte
// length varints, see tls-publish/processContextPublisher.h).
//
// Decoding: every read is bounds-checked against the bytes given; nothing is trusted. Rules
// (protobuf encoding spec): a field is a varint tag (field number << 3 | wire type) and a value;
// varints are at most 10 bytes and must fit 64 bits; field number 0 and numbers above 2^29 - 1
// are invalid; wire types 0 (varint), 1 (8 bytes), 2 (length-delimited) and 5 (4 bytes) can be
// skipped; groups (3, 4) and the unused types 6, 7 are refused (no OTEP 4719 message has groups,
// and skipping them would need nesting bookkeeping for inputs no encoder produces).
#ifndef VTCTX_PROTOCOL_PROTOBUF_WIRE_H_
#define VTCTX_PROTOCOL_PROTOBUF_WIRE_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

namespace vtctx::wire {

enum class WireType : uint8_t {
  kVarint = 0,
  kFixed64 = 1,
  kLengthDelimited = 2,
  kStartGroup = 3,
  kEndGroup = 4,
  kFixed32 = 5,
};

inline constexpr uint32_t kMaxFieldNumber = (1u << 29) - 1;
inline constexpr size_t kMaxVarintBytes = 10;

// Bytes a varint of `value` takes (1..10).
inline size_t VarintSize(uint64_t value) {
  size_t n = 1;
  for (; value >= 0x80; value >>= 7) ++n;
  return n;
}

class ProtobufWriter {
 public:
  // Field `field` as a length-delimited string or bytes field. Written even when empty: proto3
  // oneof members (AnyValue.string_value) have presence, and some readers reject an empty AnyValue.
  void String(uint32_t field, std::string_view bytes) {
    Tag(field, WireType::kLengthDelimited);
    LengthPrefix(bytes.size());
    data_.append(bytes);
  }

  // Field `field` as an embedded message (also written when empty, for the same reason).
  void Message(uint32_t field, const ProtobufWriter& nested) {
    Tag(field, WireType::kLengthDelimited);
    LengthPrefix(nested.size());
    data_.append(nested.data_);
    largest_length_ = std::max(largest_length_, nested.largest_length_);
  }

  // Field `field` as a varint: uint64, or int64 as two's complement. Written even when 0.
  void Uint64(uint32_t field, uint64_t value) {
    Tag(field, WireType::kVarint);
    Varint(value);
  }

  // A packed repeated varint field (nothing when `values` is empty).
  void PackedVarints(uint32_t field, std::span<const uint64_t> values) {
    if (values.empty()) return;
    ProtobufWriter packed;
    for (uint64_t v : values) packed.Varint(v);
    Message(field, packed);
  }

  const std::string& data() const { return data_; }
  size_t size() const { return data_.size(); }
  // The largest length prefix written so far, nested writers included.
  uint64_t largest_length() const { return largest_length_; }

 private:
  void Varint(uint64_t value) {
    for (; value >= 0x80; value >>= 7) data_.push_back(static_cast<char>((value & 0x7f) | 0x80));
    data_.push_back(static_cast<char>(value));
  }
  void Tag(uint32_t field, WireType type) {
    Varint((static_cast<uint64_t>(field) << 3) | static_cast<uint8_t>(type));
  }
  void LengthPrefix(uint64_t length) {
    largest_length_ = std::max(largest_length_, length);
    Varint(length);
  }

  std::string data_;
  uint64_t largest_length_ = 0;
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

  // Reads the next field (tag and value). False on malformed or truncated input, with error()
  // saying what and where; the reader must not be used after an error.
  bool Next(WireField& field) {
    field = WireField{};
    const size_t tag_at = pos_;
    uint64_t tag = 0;
    if (!Varint(tag)) return false;
    const uint64_t number = tag >> 3;
    if (number == 0 || number > kMaxFieldNumber) {
      pos_ = tag_at;
      return Fail("invalid field number " + std::to_string(number));
    }
    field.number = static_cast<uint32_t>(number);
    field.type = static_cast<WireType>(tag & 7);
    switch (field.type) {
      case WireType::kVarint:
        return Varint(field.varint);
      case WireType::kFixed64:
      case WireType::kFixed32: {
        const size_t n = field.type == WireType::kFixed64 ? 8 : 4;
        if (data_.size() - pos_ < n) return Fail("truncated fixed-width field");
        uint64_t v = 0;
        std::memcpy(&v, data_.data() + pos_, n);  // little-endian hosts only (x86-64, aarch64)
        field.fixed = v;
        pos_ += n;
        return true;
      }
      case WireType::kLengthDelimited: {
        uint64_t length = 0;
        if (!Varint(length)) return false;
        if (length > data_.size() - pos_) {
          return Fail("length " + std::to_string(length) + " runs past the end (" +
                      std::to_string(data_.size() - pos_) + " bytes left)");
        }
        field.bytes = data_.subspan(pos_, static_cast<size_t>(length));
        pos_ += static_cast<size_t>(length);
        return true;
      }
      default:
        pos_ = tag_at;
        return Fail("unsupported wire type " + std::to_string(tag & 7) + " (field " +
                    std::to_string(number) + ")");
    }
  }

  // What the last failed Next() found, with its byte offset ("truncated varint at byte 7").
  const std::string& error() const { return error_; }

 private:
  bool Varint(uint64_t& out) {
    out = 0;
    for (size_t i = 0; i < kMaxVarintBytes; ++i) {
      if (pos_ >= data_.size()) return Fail("truncated varint");
      const uint8_t b = data_[pos_++];
      // The tenth byte holds bit 63 only: anything more does not fit 64 bits.
      if (i == kMaxVarintBytes - 1 && b > 1) return Fail("varint overflows 64 bits");
      out |= static_cast<uint64_t>(b & 0x7f) << (7 * i);
      if ((b & 0x80) == 0) return true;
    }
    return Fail("varint longer than 10 bytes");
  }
  bool Fail(std::string what) {
    error_ = std::move(what) + " at byte " + std::to_string(pos_);
    return false;
  }

  std::span<const uint8_t> data_;
  size_t pos_ = 0;
  std::string error_;
};

}  // namespace vtctx::wire

#endif  // VTCTX_PROTOCOL_PROTOBUF_WIRE_H_
