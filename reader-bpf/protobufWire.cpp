#include "protobufWire.h"

#include <cstring>

#include "absl/strings/str_cat.h"

namespace vtctx::reader {
namespace {

constexpr uint32_t kMaxFieldNumber = (1u << 29) - 1;
constexpr size_t kMaxVarintBytes = 10;

}  // namespace

absl::Status WireReader::Error(absl::string_view what) const {
  return absl::InvalidArgumentError(absl::StrCat(what, " at byte ", pos_));
}

absl::Status WireReader::Varint(uint64_t& out) {
  out = 0;
  for (size_t i = 0; i < kMaxVarintBytes; ++i) {
    if (pos_ >= data_.size()) return Error("truncated varint");
    const uint8_t b = data_[pos_++];
    // The tenth byte holds bit 63 only: anything more does not fit 64 bits.
    if (i == kMaxVarintBytes - 1 && b > 1) return Error("varint overflows 64 bits");
    out |= static_cast<uint64_t>(b & 0x7f) << (7 * i);
    if ((b & 0x80) == 0) return absl::OkStatus();
  }
  return Error("varint longer than 10 bytes");
}

absl::Status WireReader::Next(WireField& field) {
  field = WireField{};
  const size_t tag_at = pos_;
  uint64_t tag = 0;
  if (absl::Status s = Varint(tag); !s.ok()) return s;
  const uint64_t number = tag >> 3;
  if (number == 0 || number > kMaxFieldNumber) {
    pos_ = tag_at;
    return Error(absl::StrCat("invalid field number ", number));
  }
  field.number = static_cast<uint32_t>(number);
  field.type = static_cast<WireType>(tag & 7);
  switch (field.type) {
    case WireType::kVarint:
      return Varint(field.varint);
    case WireType::kFixed64:
    case WireType::kFixed32: {
      const size_t n = field.type == WireType::kFixed64 ? 8 : 4;
      if (data_.size() - pos_ < n) return Error("truncated fixed-width field");
      uint64_t v = 0;
      std::memcpy(&v, data_.data() + pos_, n);  // little-endian hosts only (x86-64, aarch64)
      field.fixed = v;
      pos_ += n;
      return absl::OkStatus();
    }
    case WireType::kLengthDelimited: {
      uint64_t length = 0;
      if (absl::Status s = Varint(length); !s.ok()) return s;
      if (length > data_.size() - pos_) {
        return Error(absl::StrCat("length ", length, " runs past the end (", data_.size() - pos_,
                                  " bytes left)"));
      }
      field.bytes = data_.subspan(pos_, static_cast<size_t>(length));
      pos_ += static_cast<size_t>(length);
      return absl::OkStatus();
    }
    default:
      pos_ = tag_at;
      return Error(absl::StrCat("unsupported wire type ", static_cast<int>(tag & 7), " (field ",
                                number, ")"));
  }
}

}  // namespace vtctx::reader
