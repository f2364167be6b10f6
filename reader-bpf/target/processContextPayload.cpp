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
  while (!r.AtEnd()) {
    if (!r.Next(f)) return Failure("AnyValue", r);
    const bool len = f.type == WireType::kLengthDelimited;
    const bool var = f.type == WireType::kVarint;
    switch (f.number) {
      case 1:
        if (!len) break;
        become(AnyValue::Kind::kString);
        if (absl::Status s = TakeString("AnyValue", f, out.text); !s.ok()) return s;
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
      case 5: {
        if (!len) break;
        become(AnyValue::Kind::kArray);
        WireReader values(f.bytes);  // ArrayValue { repeated AnyValue values = 1; }
        WireField v;
        while (!values.AtEnd()) {
          if (!values.Next(v)) return Failure("ArrayValue", values);
          if (v.number != 1 || v.type != WireType::kLengthDelimited) continue;
          out.array.emplace_back();
          if (absl::Status s = DecodeAnyValue(v.bytes, out.array.back(), depth + 1); !s.ok()) {
            return s;
          }
        }
        break;
      }
      case 6: {
        if (!len) break;
        become(AnyValue::Kind::kKvList);
        WireReader values(f.bytes);  // KeyValueList { repeated KeyValue values = 1; }
        WireField v;
        while (!values.AtEnd()) {
          if (!values.Next(v)) return Failure("KeyValueList", values);
          if (v.number != 1 || v.type != WireType::kLengthDelimited) continue;
          out.kvlist.emplace_back();
          if (absl::Status s = DecodeKeyValue(v.bytes, out.kvlist.back(), depth + 1); !s.ok()) {
            return s;
          }
        }
        break;
      }
      case 7:
        if (!len) break;
        become(AnyValue::Kind::kBytes);
        out.text.assign(reinterpret_cast<const char*>(f.bytes.data()), f.bytes.size());
        break;
      default:
        break;  // unknown field: skipped
    }
  }
  return absl::OkStatus();
}

absl::Status DecodeKeyValue(std::span<const uint8_t> bytes, KeyValue& out, int depth) {
  WireReader r(bytes);
  WireField f;
  while (!r.AtEnd()) {
    if (!r.Next(f)) return Failure("KeyValue", r);
    if (f.type != WireType::kLengthDelimited) continue;
    if (f.number == 1) {
      if (absl::Status s = TakeString("KeyValue", f, out.key); !s.ok()) return s;
    } else if (f.number == 2) {
      if (absl::Status s = DecodeAnyValue(f.bytes, out.value, depth); !s.ok()) return s;
    }
  }
  return absl::OkStatus();
}

absl::Status DecodeResource(std::span<const uint8_t> bytes, std::vector<KeyValue>& attributes) {
  WireReader r(bytes);
  WireField f;
  while (!r.AtEnd()) {
    if (!r.Next(f)) return Failure("Resource", r);
    if (f.number != 1 || f.type != WireType::kLengthDelimited) continue;
    attributes.emplace_back();
    if (absl::Status s = DecodeKeyValue(f.bytes, attributes.back(), 0); !s.ok()) return s;
  }
  return absl::OkStatus();
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
  ProcessContextPayload out;
  WireReader r(payload);
  WireField f;
  while (!r.AtEnd()) {
    if (!r.Next(f)) return Failure("ProcessContext", r);
    if (f.type != WireType::kLengthDelimited) continue;
    if (f.number == 1) {
      if (absl::Status s = DecodeResource(f.bytes, out.resource); !s.ok()) return s;
    } else if (f.number == 2) {
      out.extra.emplace_back();
      if (absl::Status s = DecodeKeyValue(f.bytes, out.extra.back(), 0); !s.ok()) return s;
    }
  }
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
