#include "protobufWriter.h"

#include <algorithm>

namespace vtctx {

size_t ProtobufWriter::VarintSize(uint64_t value) {
  size_t n = 1;
  while (value >= 0x80) {
    value >>= 7;
    ++n;
  }
  return n;
}

void ProtobufWriter::Varint(uint64_t value) {
  while (value >= 0x80) {
    data_.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  data_.push_back(static_cast<char>(value));
}

void ProtobufWriter::Tag(uint32_t field, WireType type) {
  Varint((static_cast<uint64_t>(field) << 3) | type);
}

void ProtobufWriter::LengthPrefix(uint64_t length) {
  largest_length_ = std::max(largest_length_, length);
  Varint(length);
}

void ProtobufWriter::String(uint32_t field, std::string_view bytes) {
  Tag(field, kLengthDelimited);
  LengthPrefix(bytes.size());
  data_.append(bytes);
}

void ProtobufWriter::Message(uint32_t field, const ProtobufWriter& nested) {
  Tag(field, kLengthDelimited);
  LengthPrefix(nested.size());
  data_.append(nested.data_);
  largest_length_ = std::max(largest_length_, nested.largest_length_);
}

void ProtobufWriter::Uint64(uint32_t field, uint64_t value) {
  Tag(field, kVarint);
  Varint(value);
}

void ProtobufWriter::PackedVarints(uint32_t field, std::span<const uint64_t> values) {
  if (values.empty()) return;
  ProtobufWriter packed;
  for (uint64_t v : values) packed.Varint(v);
  Message(field, packed);
}

}  // namespace vtctx
