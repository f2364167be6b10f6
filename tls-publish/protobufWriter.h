// A tiny protobuf encoder: just enough wire format for the OTEP 4719 payload (length-delimited
// fields and varints) and for vtctx-reader's pprof output (varint fields, packed varints). It
// exists so that no protobuf runtime has to live inside the JVM (nor in the static reader).
//
// Nested messages are encoded bottom-up: encode the inner message into its own writer, then embed
// it with Message(). Every length prefix is a minimal varint, as any protobuf encoder writes it.
// The writer remembers the largest length prefix it wrote so callers can enforce reader limits
// (some readers accept at most two-byte length varints, see processContextPublisher.h).
#ifndef VTCTX_TLS_PUBLISH_PROTOBUF_WRITER_H_
#define VTCTX_TLS_PUBLISH_PROTOBUF_WRITER_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace vtctx {

class ProtobufWriter {
 public:
  enum WireType : uint8_t { kVarint = 0, kLengthDelimited = 2 };

  // Field `field` as a length-delimited string or bytes field. Written even when empty: proto3
  // oneof members (AnyValue.string_value) have presence, and some readers reject an empty AnyValue.
  void String(uint32_t field, std::string_view bytes);

  // Field `field` as an embedded message (also written when empty, for the same reason).
  void Message(uint32_t field, const ProtobufWriter& nested);

  // Field `field` as a varint: uint64, or int64 as two's complement. Written even when 0.
  void Uint64(uint32_t field, uint64_t value);

  // A packed repeated varint field (nothing when `values` is empty).
  void PackedVarints(uint32_t field, std::span<const uint64_t> values);

  const std::string& data() const { return data_; }
  size_t size() const { return data_.size(); }

  // The largest length prefix written so far, nested writers included.
  uint64_t largest_length() const { return largest_length_; }

  // Bytes a varint of `value` takes (1..10).
  static size_t VarintSize(uint64_t value);

 private:
  void Varint(uint64_t value);
  void Tag(uint32_t field, WireType type);
  void LengthPrefix(uint64_t length);

  std::string data_;
  uint64_t largest_length_ = 0;
};

}  // namespace vtctx

#endif  // VTCTX_TLS_PUBLISH_PROTOBUF_WRITER_H_
