#include "target/processContextPayload.h"

#include <cmath>
#include <cstring>
#include <string_view>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "target/recordFormat.h"
#include "vtctx/processContextHeader.h"
#include "vtctx/protobufWire.h"
#include "vtctx/utf8.h"

namespace vtctx::reader {
namespace {

// Each decoder merges the message in `bytes` into `out` (protobuf merge semantics), so a message
// field that appears twice is decoded into the same object. `where` names the message for errors.
using wire::WireField;
using wire::WireReader;
using wire::WireType;

absl::Status Failure(absl::string_view where, const WireReader& reader) {
  return absl::InvalidArgumentError(absl::StrCat(where, ": ", reader.error()));
}

absl::Status TakeString(absl::string_view where, const WireField& f, std::string& out) {
  const std::string_view text(reinterpret_cast<const char*>(f.bytes.data()), f.bytes.size());
  if (!IsValidUtf8(text)) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": field ", f.number, " is a string but not UTF-8"));
  }
  out.assign(text.data(), text.size());
  return absl::OkStatus();
}

absl::Status DecodeKeyValue(std::span<const uint8_t> bytes, KeyValue& out, int depth);

// Calls `on_field(f)` for each length-delimited field `f` of the message in `bytes`, up to the
// first error (the fields of every message here but AnyValue are all length-delimited).
template <typename OnField>
absl::Status ForEachLengthDelimited(absl::string_view where, std::span<const uint8_t> bytes,
                                    OnField on_field) {
  WireReader r(bytes);
  WireField f;
  while (!r.AtEnd()) {
    if (!r.Next(f)) return Failure(where, r);
    if (f.type != WireType::kLengthDelimited) continue;
    if (absl::Status s = on_field(f); !s.ok()) return s;
  }
  return absl::OkStatus();
}

// Appends to `out` each entry of the `repeated T ... = 1;` field of the message in `bytes`
// (ArrayValue, KeyValueList, Resource), decoded by `decode` at nesting `depth`.
template <typename T>
absl::Status DecodeRepeated(absl::string_view where, std::span<const uint8_t> bytes,
                            std::vector<T>& out,
                            absl::Status (*decode)(std::span<const uint8_t>, T&, int), int depth) {
  return ForEachLengthDelimited(where, bytes, [&](const WireField& f) {
    if (f.number != 1) return absl::OkStatus();
    out.emplace_back();
    return decode(f.bytes, out.back(), depth);
  });
}

absl::Status DecodeAnyValue(std::span<const uint8_t> bytes, AnyValue& out, int depth) {
  if (depth > kMaxAnyValueDepth) {
    return absl::InvalidArgumentError(
        absl::StrCat("AnyValue nested deeper than ", kMaxAnyValueDepth));
  }
  WireReader r(bytes);
  WireField f;
  // Switches the oneof to `kind`, dropping the previous member unless it is the same one.
  auto become = [&out](AnyValue::Kind kind) {
    if (out.kind != kind) {
      out = AnyValue{};
      out.kind = kind;
    }
  };
  absl::Status status;  // of the field just decoded
  while (status.ok() && !r.AtEnd()) {
    if (!r.Next(f)) return Failure("AnyValue", r);
    const bool len = f.type == WireType::kLengthDelimited;
    const bool var = f.type == WireType::kVarint;
    switch (f.number) {
      case 1:
        if (!len) break;
        become(AnyValue::Kind::kString);
        status = TakeString("AnyValue", f, out.text);
        break;
      case 2:
        if (!var) break;
        become(AnyValue::Kind::kBool);
        out.boolean = f.varint != 0;
        break;
      case 3:
        if (!var) break;
        become(AnyValue::Kind::kInt);
        out.integer = static_cast<int64_t>(f.varint);
        break;
      case 4:
        if (f.type != WireType::kFixed64) break;
        become(AnyValue::Kind::kDouble);
        std::memcpy(&out.number, &f.fixed, sizeof out.number);
        break;
      case 5:  // ArrayValue { repeated AnyValue values = 1; }
        if (!len) break;
        become(AnyValue::Kind::kArray);
        status = DecodeRepeated("ArrayValue", f.bytes, out.array, DecodeAnyValue, depth + 1);
        break;
      case 6:  // KeyValueList { repeated KeyValue values = 1; }
        if (!len) break;
        become(AnyValue::Kind::kKvList);
        status = DecodeRepeated("KeyValueList", f.bytes, out.kvlist, DecodeKeyValue, depth + 1);
        break;
      case 7:
        if (!len) break;
        become(AnyValue::Kind::kBytes);
        out.text.assign(reinterpret_cast<const char*>(f.bytes.data()), f.bytes.size());
        break;
      default:
        break;  // unknown field: skipped
    }
  }
  return status;
}

// KeyValue { string key = 1; AnyValue value = 2; }
absl::Status DecodeKeyValue(std::span<const uint8_t> bytes, KeyValue& out, int depth) {
  return ForEachLengthDelimited("KeyValue", bytes, [&out, depth](const WireField& f) {
    if (f.number == 1) return TakeString("KeyValue", f, out.key);
    if (f.number == 2) return DecodeAnyValue(f.bytes, out.value, depth);
    return absl::OkStatus();
  });
}

// Resource { repeated KeyValue attributes = 1; }
absl::Status DecodeResource(std::span<const uint8_t> bytes, std::vector<KeyValue>& attributes) {
  return DecodeRepeated("Resource", bytes, attributes, DecodeKeyValue, 0);
}

void AppendDouble(std::string& out, double d) {
  if (std::isnan(d)) {
    out += "\"NaN\"";
  } else if (std::isinf(d)) {
    out += d > 0 ? "\"Infinity\"" : "\"-Infinity\"";
  } else {
    absl::StrAppendFormat(&out, "%.17g", d);
  }
}

}  // namespace

absl::StatusOr<ProcessContextPayload> DecodeProcessContextPayload(
    std::span<const uint8_t> payload) {
  // ProcessContext { Resource resource = 1; repeated KeyValue extra_attributes = 2; }
  ProcessContextPayload out;
  absl::Status s = ForEachLengthDelimited("ProcessContext", payload, [&out](const WireField& f) {
    if (f.number == 1) return DecodeResource(f.bytes, out.resource);
    if (f.number != 2) return absl::OkStatus();
    out.extra.emplace_back();
    return DecodeKeyValue(f.bytes, out.extra.back(), 0);
  });
  if (!s.ok()) return s;
  return out;
}

ThreadContextKeys InterpretThreadContext(const ProcessContextPayload& payload) {
  ThreadContextKeys out;
  for (const KeyValue& kv : payload.extra) {
    if (kv.key == VTCTX_PCTX_KEY_SCHEMA_VERSION) {
      out.schema_present = true;
      out.schema_version = kv.value.kind == AnyValue::Kind::kString ? kv.value.text : "";
    } else if (kv.key == VTCTX_PCTX_KEY_ATTRIBUTE_KEY_MAP) {
      out.key_map_present = true;
      out.key_map.clear();
      out.key_map_error.clear();
      if (kv.value.kind != AnyValue::Kind::kArray) {
        out.key_map_error = "not an array";
        continue;
      }
      for (size_t i = 0; i < kv.value.array.size(); ++i) {
        const AnyValue& element = kv.value.array[i];
        if (element.kind != AnyValue::Kind::kString || element.text.empty()) {
          out.key_map_error = absl::StrCat("element ", i, " is not a non-empty string");
          out.key_map.clear();
          break;
        }
        out.key_map.push_back(element.text);
      }
    }
  }
  out.schema_supported =
      out.schema_present && out.schema_version == VTCTX_PCTX_THREADLOCAL_SCHEMA_VERSION;
  return out;
}

void AppendAnyValueJson(std::string& out, const AnyValue& value) {
  switch (value.kind) {
    case AnyValue::Kind::kNone:
      out += "null";
      return;
    case AnyValue::Kind::kString:
      AppendJsonString(out, value.text);
      return;
    case AnyValue::Kind::kBool:
      out += value.boolean ? "true" : "false";
      return;
    case AnyValue::Kind::kInt:
      absl::StrAppend(&out, value.integer);
      return;
    case AnyValue::Kind::kDouble:
      AppendDouble(out, value.number);
      return;
    case AnyValue::Kind::kBytes:
      AppendJsonString(out, absl::Base64Escape(value.text));
      return;
    case AnyValue::Kind::kArray:
      out += '[';
      for (size_t i = 0; i < value.array.size(); ++i) {
        if (i > 0) out += ',';
        AppendAnyValueJson(out, value.array[i]);
      }
      out += ']';
      return;
    case AnyValue::Kind::kKvList:
      out += '{';
      for (size_t i = 0; i < value.kvlist.size(); ++i) {
        if (i > 0) out += ',';
        AppendJsonString(out, value.kvlist[i].key);
        out += ':';
        AppendAnyValueJson(out, value.kvlist[i].value);
      }
      out += '}';
      return;
  }
}

}  // namespace vtctx::reader
