// Test-only decoder for the OTEP 4719 payload, written independently of the encoder. It is strict
// the way the readers we must satisfy are strict (see docs/process-context.md):
// - wire types 0 and 2 only, unknown fields rejected;
// - every length prefix a varint of at most two bytes (<= 16383) and every string <= 4096 bytes
//   (the ctx-sharing-demo decoder's limits);
// - strings valid UTF-8 (Go's protobuf runtime, used by the eBPF profiler, rejects others);
// - an AnyValue must hold a value (ctx-sharing-demo rejects an empty one).
// The real-protobuf check lives in tests/pctx (Python protobuf on the live mapping).
#ifndef VTCTX_TESTS_UNIT_PROCESS_CONTEXT_DECODER_H_
#define VTCTX_TESTS_UNIT_PROCESS_CONTEXT_DECODER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "vtctx/utf8.h"

namespace vtctx::testing {

struct DecodedValue {
  bool is_array = false;
  std::string string_value;
  std::vector<std::string> array_values;  // string elements only
};

struct DecodedContext {
  std::vector<std::pair<std::string, std::string>> resource;
  std::vector<std::pair<std::string, DecodedValue>> extra;

  const DecodedValue* Extra(std::string_view key) const {
    for (const auto& [k, v] : extra) {
      if (k == key) return &v;
    }
    return nullptr;
  }
  std::optional<std::string> Resource(std::string_view key) const {
    for (const auto& [k, v] : resource) {
      if (k == key) return v;
    }
    return std::nullopt;
  }
};

class StrictReader {
 public:
  explicit StrictReader(std::string_view data) : data_(data) {}
  bool done() const { return pos_ == data_.size(); }

  bool Varint(uint64_t* v) {
    *v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= data_.size()) return false;
      const uint8_t b = static_cast<uint8_t>(data_[pos_++]);
      *v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (b < 0x80) return true;
    }
    return false;
  }
  // A length prefix: at most two varint bytes and <= 16383.
  bool Length(size_t* len) {
    const size_t start = pos_;
    uint64_t v;
    if (!Varint(&v) || pos_ - start > 2 || v > 16383 || v > data_.size() - pos_) return false;
    *len = static_cast<size_t>(v);
    return true;
  }
  bool Tag(uint32_t* field, uint32_t* wire) {
    uint64_t v;
    if (!Varint(&v)) return false;
    *field = static_cast<uint32_t>(v >> 3);
    *wire = static_cast<uint32_t>(v & 7);
    return true;
  }
  bool Bytes(std::string_view* out) {
    size_t len;
    if (!Length(&len)) return false;
    *out = data_.substr(pos_, len);
    pos_ += len;
    return true;
  }
  bool String(std::string* out) {
    std::string_view s;
    if (!Bytes(&s) || s.size() > 4096 || !IsValidUtf8(s)) return false;
    *out = std::string(s);
    return true;
  }

 private:
  std::string_view data_;
  size_t pos_ = 0;
};

inline bool DecodeAnyValue(std::string_view data, DecodedValue* out) {
  StrictReader r(data);
  bool have = false;
  while (!r.done()) {
    uint32_t field, wire;
    if (!r.Tag(&field, &wire) || wire != 2) return false;
    if (field == 1) {
      if (!r.String(&out->string_value)) return false;
      out->is_array = false;
    } else if (field == 5) {
      std::string_view array;
      if (!r.Bytes(&array)) return false;
      StrictReader a(array);
      out->array_values.clear();
      while (!a.done()) {
        uint32_t f, w;
        std::string_view element;
        DecodedValue v;
        if (!a.Tag(&f, &w) || f != 1 || w != 2 || !a.Bytes(&element) ||
            !DecodeAnyValue(element, &v) || v.is_array) {
          return false;
        }
        out->array_values.push_back(v.string_value);
      }
      out->is_array = true;
    } else {
      return false;
    }
    have = true;
  }
  return have;
}

inline bool DecodeKeyValue(std::string_view data, std::string* key, DecodedValue* value) {
  StrictReader r(data);
  bool have_key = false, have_value = false;
  while (!r.done()) {
    uint32_t field, wire;
    if (!r.Tag(&field, &wire) || wire != 2) return false;
    if (field == 1) {
      if (!r.String(key)) return false;
      have_key = true;
    } else if (field == 2) {
      std::string_view any;
      if (!r.Bytes(&any) || !DecodeAnyValue(any, value)) return false;
      have_value = true;
    } else {
      return false;
    }
  }
  return have_key && have_value;
}

// Decodes a ProcessContext payload; nullopt if anything is malformed or beyond reader limits.
inline std::optional<DecodedContext> DecodeProcessContext(std::string_view payload) {
  DecodedContext ctx;
  StrictReader r(payload);
  while (!r.done()) {
    uint32_t field, wire;
    std::string_view body;
    if (!r.Tag(&field, &wire) || wire != 2 || !r.Bytes(&body)) return std::nullopt;
    if (field == 1) {
      StrictReader res(body);
      while (!res.done()) {
        uint32_t f, w;
        std::string_view kv;
        std::string key;
        DecodedValue value;
        if (!res.Tag(&f, &w) || f != 1 || w != 2 || !res.Bytes(&kv) ||
            !DecodeKeyValue(kv, &key, &value) || value.is_array) {
          return std::nullopt;
        }
        ctx.resource.emplace_back(key, value.string_value);
      }
    } else if (field == 2) {
      std::string key;
      DecodedValue value;
      if (!DecodeKeyValue(body, &key, &value)) return std::nullopt;
      ctx.extra.emplace_back(key, value);
    } else {
      return std::nullopt;
    }
  }
  return ctx;
}

}  // namespace vtctx::testing

#endif  // VTCTX_TESTS_UNIT_PROCESS_CONTEXT_DECODER_H_
