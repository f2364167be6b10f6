// The hand-written OTEP 4719 payload decoder: golden payloads encoded by python3-protobuf, the
// agent's own encoder (tls-publish EncodeProcessContext) in a round trip, protobuf semantics real
// encoders rely on, and malformed input of every kind (each must be an error, never a crash).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "processContextPublisher.h"  // tls-publish: the agent's encoder
#include "target/processContextPayload.h"
#include "vtctx/protobufWire.h"

namespace vtctx::reader {
namespace {

using wire::WireField;
using wire::WireReader;
using wire::WireType;

std::vector<uint8_t> Hex(const std::string& hex) {
  const std::string bytes = absl::HexStringToBytes(hex);
  return {bytes.begin(), bytes.end()};
}

std::vector<uint8_t> Bytes(const std::string& s) { return {s.begin(), s.end()}; }

// python3-protobuf, tests/pctx/processContext.proto: resource service.name=checkout,
// service.instance.id=0b4f6bde-..., telemetry.sdk.language=java; schema tlsdesc_v1_dev; key map
// ["http.route", "user.id"]. (The layout the agent publishes.)
const char kAgentLike[] =
    "0a7d0a1a0a0c736572766963652e6e616d65120a0a08636865636b6f75740a3d0a13736572766963652e696e7374"
    "616e63652e696412260a2430623466366264652d353761352d346333632d396135392d3365346362623162346234"
    "660a200a1674656c656d657472792e73646b2e6c616e677561676512060a046a617661122e0a1a7468726561646c"
    "6f63616c2e736368656d615f76657273696f6e12100a0e746c73646573635f76315f646576123c0a1d7468726561"
    "646c6f63616c2e6174747269627574655f6b65795f6d6170121b2a190a0c0a0a687474702e726f7574650a090a07"
    "757365722e6964";

// python3-protobuf: resource b=true, i=-5, d=1.5, y=bytes 00ff, a=["x", 2], l={k: "v"}, e=<empty
// AnyValue>, dropped_attributes_count=3.
const char kAllKinds[] =
    "0a640a070a0162120210010a100a0169120b18fbffffffffffffffff010a0e0a0164120921000000000000f83f0a"
    "090a017912043a0200ff0a100a0161120b2a090a030a01780a0218020a110a016c120c320a0a080a016b12030a01"
    "760a050a016512001003";

std::string Json(const AnyValue& v) {
  std::string out;
  AppendAnyValueJson(out, v);
  return out;
}

TEST(PayloadDecoder, GoldenAgentLayout) {
  auto p = DecodeProcessContextPayload(Hex(kAgentLike));
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_EQ(p->resource.size(), 3u);
  EXPECT_EQ(p->resource[0].key, "service.name");
  EXPECT_EQ(p->resource[0].value.kind, AnyValue::Kind::kString);
  EXPECT_EQ(p->resource[0].value.text, "checkout");
  EXPECT_EQ(p->resource[1].value.text, "0b4f6bde-57a5-4c3c-9a59-3e4cbb1b4b4f");
  EXPECT_EQ(p->resource[2].key, "telemetry.sdk.language");
  ASSERT_EQ(p->extra.size(), 2u);
  const ThreadContextKeys t = InterpretThreadContext(*p);
  EXPECT_TRUE(t.schema_present);
  EXPECT_EQ(t.schema_version, "tlsdesc_v1_dev");
  EXPECT_TRUE(t.schema_supported);
  EXPECT_TRUE(t.key_map_present);
  EXPECT_EQ(t.key_map, (std::vector<std::string>{"http.route", "user.id"}));
  EXPECT_EQ(t.key_map_error, "");
}

TEST(PayloadDecoder, GoldenEveryValueKind) {
  auto p = DecodeProcessContextPayload(Hex(kAllKinds));
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_EQ(p->resource.size(), 7u);
  std::string all;
  for (const KeyValue& kv : p->resource) all += kv.key + "=" + Json(kv.value) + " ";
  EXPECT_EQ(all, "b=true i=-5 d=1.5 y=\"AP8=\" a=[\"x\",2] l={\"k\":\"v\"} e=null ");
  EXPECT_TRUE(p->extra.empty());
  const ThreadContextKeys t = InterpretThreadContext(*p);
  EXPECT_FALSE(t.schema_present);
  EXPECT_FALSE(t.schema_supported);
  EXPECT_FALSE(t.key_map_present);
}

// The agent's encoder (the code the JVM runs) against this decoder, for key maps of every size
// up to the 255-key limit and strings with multi-byte characters.
TEST(PayloadDecoder, RoundTripWithTheAgentEncoder) {
  const std::vector<StringAttribute> resource = {{"service.name", "caf\xc3\xa9-\xf0\x9f\x9a\x80"},
                                                 {"service.instance.id", "id"},
                                                 {"telemetry.sdk.language", "java"},
                                                 {"empty.value", ""}};
  std::vector<std::string> keys;
  for (int n : {0, 1, 2, 3, 8, 100, 254, 255}) {
    while (static_cast<int>(keys.size()) < n) keys.push_back("key." + std::to_string(keys.size()));
    std::string payload;
    ASSERT_EQ(EncodeProcessContext(resource, keys, &payload), "") << n;
    auto p = DecodeProcessContextPayload(Bytes(payload));
    ASSERT_TRUE(p.ok()) << n << ": " << p.status();
    ASSERT_EQ(p->resource.size(), resource.size());
    for (size_t i = 0; i < resource.size(); ++i) {
      EXPECT_EQ(p->resource[i].key, resource[i].key);
      EXPECT_EQ(p->resource[i].value.kind, AnyValue::Kind::kString);
      EXPECT_EQ(p->resource[i].value.text, resource[i].value);
    }
    const ThreadContextKeys t = InterpretThreadContext(*p);
    EXPECT_TRUE(t.schema_supported);
    EXPECT_TRUE(t.key_map_present);  // present even when empty: the agent always publishes it
    EXPECT_EQ(t.key_map, keys) << n;
  }
}

// Appends a tag and a length-delimited value (test-side encoder, for inputs no encoder makes).
void Len(std::string& out, uint32_t field, const std::string& value) {
  out += static_cast<char>(field << 3 | 2);  // fields below 16 here
  for (uint64_t n = value.size();; n >>= 7) {
    out += static_cast<char>((n & 0x7f) | (n >= 0x80 ? 0x80 : 0));
    if (n < 0x80) break;
  }
  out += value;
}
std::string Str(uint32_t field, const std::string& v) {
  std::string out;
  Len(out, field, v);
  return out;
}
std::string KeyValueOf(const std::string& key, const std::string& any_value) {
  return Str(1, key) + Str(2, any_value);
}
std::string ExtraPayload(const std::vector<std::string>& key_values) {
  std::string out;
  for (const std::string& kv : key_values) Len(out, 2, kv);
  return out;
}

TEST(PayloadDecoder, UnknownFieldsOfEveryWireTypeAreSkipped) {
  std::string unknown;
  unknown += "\x78\x05";                       // field 15 varint
  unknown += "\x79" + std::string(8, '\x01');  // field 15 fixed64
  unknown += "\x7d" + std::string(4, '\x02');  // field 15 fixed32
  unknown += Str(15, "whatever");              // field 15 length-delimited
  const std::string any = unknown + Str(1, "tlsdesc_v1_dev") + unknown;
  const std::string payload =
      unknown + ExtraPayload({unknown + KeyValueOf("threadlocal.schema_version", any) + unknown}) +
      unknown;
  auto p = DecodeProcessContextPayload(Bytes(payload));
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_TRUE(InterpretThreadContext(*p).schema_supported);
}

TEST(PayloadDecoder, KnownFieldWithAnotherWireTypeIsSkipped) {
  // AnyValue field 1 as a varint: not a string, skipped as unknown (protobuf runtimes do this).
  const std::string any = std::string("\x08\x07", 2) + Str(1, "tlsdesc_v1_dev");
  auto p = DecodeProcessContextPayload(
      Bytes(ExtraPayload({KeyValueOf("threadlocal.schema_version", any)})));
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_TRUE(InterpretThreadContext(*p).schema_supported);
}

TEST(PayloadDecoder, LastValueWinsAndMessagesMerge) {
  // key twice: last wins; AnyValue oneof switched from int to string: the string counts.
  const std::string any = std::string("\x18\x05", 2) + Str(1, "tlsdesc_v1_dev");
  const std::string kv = Str(1, "bogus") + Str(2, std::string("\x18\x01", 2)) +
                         Str(1, "threadlocal.schema_version") + Str(2, any);
  // Two array_value fields in one AnyValue merge: their elements concatenate.
  const std::string map_value = Str(5, Str(1, Str(1, "a"))) + Str(5, Str(1, Str(1, "b")));
  const std::string map = KeyValueOf("threadlocal.attribute_key_map", map_value);
  // Two resource fields merge too.
  const std::string resource =
      Str(1, Str(1, KeyValueOf("r1", Str(1, "x")))) + Str(1, Str(1, KeyValueOf("r2", Str(1, "y"))));
  auto p = DecodeProcessContextPayload(Bytes(resource + ExtraPayload({kv, map})));
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_EQ(p->resource.size(), 2u);
  EXPECT_EQ(p->resource[1].key, "r2");
  const ThreadContextKeys t = InterpretThreadContext(*p);
  EXPECT_TRUE(t.schema_supported);
  EXPECT_EQ(t.key_map, (std::vector<std::string>{"a", "b"}));
}

TEST(PayloadDecoder, SchemaAndKeyMapRules) {
  auto interpret = [](const std::vector<std::string>& extra) {
    auto p = DecodeProcessContextPayload(Bytes(ExtraPayload(extra)));
    EXPECT_TRUE(p.ok()) << p.status();
    return InterpretThreadContext(*p);
  };
  const std::string schema = KeyValueOf("threadlocal.schema_version", Str(1, "tlsdesc_v1_dev"));
  ThreadContextKeys t = interpret({KeyValueOf("threadlocal.schema_version", Str(1, "tls_v1"))});
  EXPECT_TRUE(t.schema_present);
  EXPECT_EQ(t.schema_version, "tls_v1");
  EXPECT_FALSE(t.schema_supported);
  // Not a string.
  t = interpret({KeyValueOf("threadlocal.schema_version", "\x10\x01")});
  EXPECT_TRUE(t.schema_present);
  EXPECT_FALSE(t.schema_supported);
  // The last schema entry counts.
  t = interpret({schema, KeyValueOf("threadlocal.schema_version", Str(1, "x"))});
  EXPECT_FALSE(t.schema_supported);
  // Key map: not an array.
  t = interpret({schema, KeyValueOf("threadlocal.attribute_key_map", Str(1, "a"))});
  EXPECT_EQ(t.key_map_error, "not an array");
  EXPECT_TRUE(t.key_map.empty());
  // An empty string or a non-string element makes the whole map unusable.
  t = interpret({schema, KeyValueOf("threadlocal.attribute_key_map",
                                    Str(5, Str(1, Str(1, "a")) + Str(1, Str(1, ""))))});
  EXPECT_EQ(t.key_map_error, "element 1 is not a non-empty string");
  EXPECT_TRUE(t.key_map.empty());
  t = interpret({schema, KeyValueOf("threadlocal.attribute_key_map",
                                    Str(5, Str(1, std::string("\x18\x01", 2))))});
  EXPECT_EQ(t.key_map_error, "element 0 is not a non-empty string");
  // An empty array is a valid, empty map.
  t = interpret({schema, KeyValueOf("threadlocal.attribute_key_map", Str(5, ""))});
  EXPECT_TRUE(t.key_map_present);
  EXPECT_EQ(t.key_map_error, "");
  EXPECT_TRUE(t.key_map.empty());
}

TEST(PayloadDecoder, ValueRendering) {
  AnyValue v;
  EXPECT_EQ(Json(v), "null");
  v.kind = AnyValue::Kind::kDouble;
  v.number = std::nan("");
  EXPECT_EQ(Json(v), "\"NaN\"");
  v.number = -INFINITY;
  EXPECT_EQ(Json(v), "\"-Infinity\"");
  v.number = 0.1;
  EXPECT_EQ(Json(v), "0.10000000000000001");
  v.kind = AnyValue::Kind::kString;
  v.text = "a\"b\n";
  EXPECT_EQ(Json(v), "\"a\\\"b\\u000a\"");
  v.kind = AnyValue::Kind::kBytes;
  v.text = std::string("\xff\x00", 2);
  EXPECT_EQ(Json(v), "\"/wA=\"");
}

struct Malformed {
  const char* what;
  std::string payload;
  const char* error;  // substring of the message
};

std::vector<Malformed> MalformedPayloads() {
  const std::string kv = KeyValueOf("k", Str(1, "v"));
  std::string deep = Str(1, "leaf");
  for (int i = 0; i <= kMaxAnyValueDepth; ++i) deep = Str(5, Str(1, deep));
  return {
      {"truncated varint tag", "\x8a", "truncated varint"},
      {"varint longer than 10 bytes", std::string(10, '\xff') + "\x01", "varint"},
      {"varint overflowing 64 bits", std::string("\x08") + std::string(9, '\xff') + "\x02",
       "overflows 64 bits"},
      {"field number 0", std::string("\x02\x00", 2), "invalid field number 0"},
      {"start group", "\x0b", "unsupported wire type 3"},
      {"end group", "\x0c", "unsupported wire type 4"},
      {"wire type 6", "\x0e", "unsupported wire type 6"},
      {"wire type 7", "\x0f", "unsupported wire type 7"},
      {"length past the end", "\x12\x05" + kv.substr(0, 3), "runs past the end"},
      {"huge length", std::string("\x12\xff\xff\xff\xff\x0f", 6), "runs past the end"},
      {"truncated fixed64", "\x79\x01\x02", "truncated fixed-width"},
      {"truncated fixed32", "\x7d\x01", "truncated fixed-width"},
      {"key not UTF-8", ExtraPayload({KeyValueOf("\xc3\x28", Str(1, "v"))}), "not UTF-8"},
      {"string value not UTF-8", ExtraPayload({KeyValueOf("k", Str(1, "\xed\xa0\x80"))}),
       "not UTF-8"},  // a UTF-16 surrogate
      {"overlong UTF-8", ExtraPayload({KeyValueOf("k", Str(1, "\xc0\xaf"))}), "not UTF-8"},
      {"bad field inside a nested message", ExtraPayload({KeyValueOf("k", "\x0f")}),
       "AnyValue: unsupported wire type 7"},
      {"nesting too deep", ExtraPayload({KeyValueOf("k", deep)}), "nested deeper"},
  };
}

TEST(PayloadDecoder, MalformedInputsAreErrors) {
  for (const Malformed& m : MalformedPayloads()) {
    auto p = DecodeProcessContextPayload(Bytes(m.payload));
    ASSERT_FALSE(p.ok()) << m.what;
    EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument) << m.what;
    EXPECT_NE(p.status().message().find(m.error), std::string::npos)
        << m.what << ": " << p.status().message();
  }
}

TEST(PayloadDecoder, NestingAtTheLimitDecodes) {
  std::string deep = Str(1, "leaf");
  for (int i = 0; i < kMaxAnyValueDepth; ++i) deep = Str(5, Str(1, deep));
  auto p = DecodeProcessContextPayload(Bytes(ExtraPayload({KeyValueOf("k", deep)})));
  EXPECT_TRUE(p.ok()) << p.status();
}

TEST(PayloadDecoder, BytesValuesNeedNotBeUtf8) {
  auto p = DecodeProcessContextPayload(Bytes(ExtraPayload({KeyValueOf("k", Str(7, "\xff"))})));
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->extra[0].value.kind, AnyValue::Kind::kBytes);
}

// Every prefix of a golden payload: an error, or (cut exactly between two top-level fields) a
// successful decode of the fields before the cut. Never anything else.
TEST(PayloadDecoder, EveryTruncationOfAGoldenPayload) {
  for (const char* golden : {kAgentLike, kAllKinds}) {
    const std::vector<uint8_t> full = Hex(golden);
    // Top-level field boundaries.
    std::vector<size_t> boundaries = {0};
    WireReader r(full);
    WireField f;
    while (!r.AtEnd()) {
      ASSERT_TRUE(r.Next(f));
      boundaries.push_back(r.position());
    }
    for (size_t n = 0; n < full.size(); ++n) {
      auto p = DecodeProcessContextPayload({full.data(), n});
      const bool boundary = std::find(boundaries.begin(), boundaries.end(), n) != boundaries.end();
      EXPECT_EQ(p.ok(), boundary) << "prefix " << n << ": " << p.status();
    }
  }
}

TEST(WireReader, VarintLimits) {
  // The largest varint (2^64 - 1) in 10 bytes is accepted.
  std::vector<uint8_t> max = {0x08};
  for (int i = 0; i < 9; ++i) max.push_back(0xff);
  max.push_back(0x01);
  WireReader r(max);
  WireField f;
  ASSERT_TRUE(r.Next(f));
  EXPECT_EQ(f.varint, ~0ull);
  EXPECT_TRUE(r.AtEnd());
  // The largest field number.
  const std::vector<uint8_t> big_field = {0xf8, 0xff, 0xff, 0xff, 0x0f, 0x00};
  WireReader r2(big_field);
  ASSERT_TRUE(r2.Next(f));
  EXPECT_EQ(f.number, (1u << 29) - 1);
  const std::vector<uint8_t> too_big = {0x80, 0x80, 0x80, 0x80, 0x10, 0x00};
  WireReader r3(too_big);
  EXPECT_FALSE(r3.Next(f));
}

}  // namespace
}  // namespace vtctx::reader
