// Decoding of the OTEP 4719 payload, protobuf `ProcessContext`
// (opentelemetry.proto.processcontext.v1development), with a small hand-written decoder: the
// reader carries no protobuf runtime. Field numbers (the wire contract):
//
//   ProcessContext { 1: Resource resource; 2: repeated KeyValue extra_attributes }
//   Resource       { 1: repeated KeyValue attributes; 2: uint32 dropped_attributes_count }
//   KeyValue       { 1: string key; 2: AnyValue value }
//   AnyValue       { oneof: 1 string, 2 bool, 3 int64, 4 double, 5 ArrayValue, 6 KeyValueList,
//                    7 bytes }
//   ArrayValue     { 1: repeated AnyValue values }     KeyValueList { 1: repeated KeyValue values }
//
// Decoding follows protobuf semantics where they matter for real encoders: unknown fields are
// skipped (also a known field number with an unexpected wire type, as protobuf runtimes do), a
// singular field seen twice keeps the last value, an embedded message seen twice is merged, a
// oneof keeps its last member. Like the Go runtime the OpenTelemetry eBPF profiler uses, a
// `string` that is not UTF-8 makes the whole payload invalid. Values nest at most
// kMaxAnyValueDepth deep (the protobuf runtimes' limits are higher; no real payload comes near).
#ifndef VTCTX_READER_PROCESS_CONTEXT_PAYLOAD_H_
#define VTCTX_READER_PROCESS_CONTEXT_PAYLOAD_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace vtctx::reader {

inline constexpr int kMaxAnyValueDepth = 32;

struct KeyValue;

struct AnyValue {
  enum class Kind { kNone, kString, kBool, kInt, kDouble, kArray, kKvList, kBytes };
  Kind kind = Kind::kNone;  // kNone: no member of the oneof was set
  std::string text;         // kString (valid UTF-8), kBytes (any bytes)
  bool boolean = false;
  int64_t integer = 0;
  double number = 0;
  std::vector<AnyValue> array;
  std::vector<KeyValue> kvlist;
};

struct KeyValue {
  std::string key;
  AnyValue value;
};

struct ProcessContextPayload {
  std::vector<KeyValue> resource;  // Resource.attributes, in payload order
  std::vector<KeyValue> extra;     // ProcessContext.extra_attributes, in payload order
};

// InvalidArgument (with the byte offset and the message it was in) for anything malformed.
absl::StatusOr<ProcessContextPayload> DecodeProcessContextPayload(std::span<const uint8_t> payload);

// What the payload says about OTEP 4947 thread context, read from the extra attributes with the
// rules of the OpenTelemetry eBPF profiler's reader:
// - `threadlocal.schema_version` must be the string "tlsdesc_v1_dev" (the only version defined);
// - `threadlocal.attribute_key_map` must be an array of non-empty strings; element i names key
//   index i. Anything else makes the whole map unusable (key_map_error says why).
// A key present twice: the last one counts.
struct ThreadContextKeys {
  bool schema_present = false;
  std::string schema_version;  // "" if absent or not a string
  bool schema_supported = false;
  bool key_map_present = false;
  std::vector<std::string> key_map;  // empty unless present and well-formed
  std::string key_map_error;         // "" when the map is usable (or absent)
};
ThreadContextKeys InterpretThreadContext(const ProcessContextPayload& payload);

// Appends `value` as JSON: strings escaped (recordFormat's rules), bool/int as JSON literals,
// doubles as numbers (non-finite ones as the strings "NaN", "Infinity", "-Infinity", like the
// protobuf JSON mapping), bytes as base64 strings, arrays and key-value lists as arrays and
// objects, an unset value as null. Also the text format's rendering of a value.
void AppendAnyValueJson(std::string& out, const AnyValue& value);

}  // namespace vtctx::reader

#endif  // VTCTX_READER_PROCESS_CONTEXT_PAYLOAD_H_
