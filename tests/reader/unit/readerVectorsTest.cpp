// The reader side against the golden vectors of protocol/vectors/ (docs/protocol.md): a record
// header as the BPF programs copy it plus its attrs-data decode to the `decode` meaning, and the
// process-context payload decoder accepts, interprets or rejects each payload as the vectors say.
#include <gtest/gtest.h>

#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "hotspot/agentLoad.h"
#include "target/processContextPayload.h"
#include "target/recordFormat.h"
#include "vectorFile.h"

namespace vtctx::reader {
namespace {

using testing::ReadVectors;
using testing::SplitList;
using testing::Vector;

std::string Hex(const void* bytes, size_t size) {
  std::string out;
  AppendHex(out, static_cast<const uint8_t*>(bytes), size);
  return out.empty() ? "-" : out;
}

std::string Hex(const std::string& bytes) { return Hex(bytes.data(), bytes.size()); }

std::span<const uint8_t> Span(const std::string& bytes) {
  return {reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()};
}

TEST(ReaderVectors, RecordsDecodeToTheirMeaning) {
  for (const Vector& v : ReadVectors("records.vec", "decode")) {
    SCOPED_TRACE(v.name);
    const std::string bytes = v.Bytes("record");
    ASSERT_GE(bytes.size(), sizeof(vtctx_record_header));
    ContextView ctx;
    ctx.status = VTCTX_CTX_OK;
    std::memcpy(&ctx.header, bytes.data(), sizeof ctx.header);  // what the BPF programs copy
    const std::string attrs = bytes.substr(sizeof ctx.header, ctx.header.attrs_data_size);
    ctx.attrs = Span(attrs);
    EXPECT_EQ(ctx.header.valid, v.Int("valid"));
    EXPECT_EQ(IsValidContext(ctx), v.Int("valid") == 1);
    EXPECT_EQ(Hex(ctx.header.trace_id, sizeof ctx.header.trace_id), v.Field("trace_id"));
    EXPECT_EQ(Hex(ctx.header.span_id, sizeof ctx.header.span_id), v.Field("span_id"));
    EXPECT_EQ(Hex(&ctx.header.trace_flags, 1), v.Field("flags"));
    std::vector<std::string> decoded;
    for (const auto& [key, value] : DecodeAttrs(ctx.attrs)) {
      decoded.push_back(std::to_string(key) + ":" + Hex(value));
    }
    EXPECT_EQ(decoded, SplitList(v.Field("attrs"), ','));
  }
}

std::vector<std::string> HexList(const std::vector<std::string>& items) {
  std::vector<std::string> out;
  for (const std::string& item : items) out.push_back(Hex(item));
  return out;
}

// A vector's "bytes", decoded as a process-context payload.
absl::StatusOr<ProcessContextPayload> DecodedBytes(const Vector& v) {
  const std::string bytes = v.Bytes("bytes");
  return DecodeProcessContextPayload(Span(bytes));
}

TEST(ReaderVectors, ProcessContextPayloadsDecodeToTheirMeaning) {
  for (const Vector& v : ReadVectors("processContext.vec", "decode")) {
    SCOPED_TRACE(v.name);
    absl::StatusOr<ProcessContextPayload> payload = DecodedBytes(v);
    ASSERT_TRUE(payload.ok()) << payload.status();
    std::vector<std::string> resource;
    for (const KeyValue& kv : payload->resource) {
      ASSERT_EQ(kv.value.kind, AnyValue::Kind::kString);
      resource.push_back(Hex(kv.key) + ":" + Hex(kv.value.text));
    }
    EXPECT_EQ(resource, SplitList(v.Field("resource"), ','));
    const ThreadContextKeys keys = InterpretThreadContext(*payload);
    EXPECT_EQ(keys.schema_present ? Hex(keys.schema_version) : "-", v.Field("schema"));
    EXPECT_EQ(keys.schema_supported, v.Int("supported") == 1);
    const std::string key_map = !keys.key_map_present        ? "absent"
                                : keys.key_map_error.empty() ? "ok"
                                                             : "error";
    EXPECT_EQ(key_map, v.Field("key_map"));
    EXPECT_EQ(HexList(keys.key_map), SplitList(v.Field("keys"), ','));
  }
}

TEST(ReaderVectors, MalformedProcessContextPayloadsAreRejected) {
  for (const Vector& v : ReadVectors("processContext.vec", "malformed")) {
    EXPECT_FALSE(DecodedBytes(v).ok()) << v.name;
  }
}

// The writer's payloads are payloads the reader reads back to the same keys.
TEST(ReaderVectors, EncodedPayloadsDecode) {
  for (const Vector& v : ReadVectors("processContext.vec", "encode")) {
    SCOPED_TRACE(v.name);
    absl::StatusOr<ProcessContextPayload> payload = DecodedBytes(v);
    ASSERT_TRUE(payload.ok()) << payload.status();
    const ThreadContextKeys keys = InterpretThreadContext(*payload);
    EXPECT_TRUE(keys.schema_supported);
    EXPECT_EQ(keys.key_map_error, "");
    EXPECT_EQ(HexList(keys.key_map), SplitList(v.Field("keys"), ','));
  }
}

// What the agent writes at a load, as the reader takes it (hotspot/agentLoad.h).
TEST(ReaderVectors, LoadReportsParseToTheirFields) {
  int n = 0;
  for (const char* kind : {"active", "inactive"}) {
    for (const Vector& v : ReadVectors("loadReport.vec", kind)) {
      absl::StatusOr<AgentReport> report = ParseAgentReport(v.Bytes("line"));
      ASSERT_TRUE(report.ok()) << v.name << ": " << report.status();
      EXPECT_EQ(report->active, std::string(kind) == "active") << v.name;
      EXPECT_EQ(report->text, v.Bytes("text")) << v.name;
      for (const std::string& item : SplitList(v.Field("fields"), ',')) {
        const size_t colon = item.find(':');
        EXPECT_EQ(report->fields[item.substr(0, colon)], Vector::FromHex(item.substr(colon + 1)))
            << v.name;
      }
      ++n;
    }
  }
  EXPECT_GE(n, 5);
  for (const Vector& v : ReadVectors("loadReport.vec", "malformed")) {
    EXPECT_TRUE(absl::IsInvalidArgument(ParseAgentReport(v.Bytes("line")).status())) << v.name;
  }
}

}  // namespace
}  // namespace vtctx::reader
