// The writer side against the golden vectors of protocol/vectors/ (docs/protocol.md): the record
// writer and attribute encoder produce exactly the `write` bytes, the C++ record view reads the
// `decode` bytes field by field, the UTF-8 rules give the utf8.vec answers and the process-context
// encoder produces exactly the `encode` payloads, which the strict test decoder (the strictest
// reader's limits, processContextDecoder.h) accepts while it rejects the `malformed` ones.
#include <gtest/gtest.h>

#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "processContextDecoder.h"
#include "processContextPublisher.h"
#include "recordAttributes.h"
#include "recordWriter.h"
#include "threadContextRecord.h"
#include "vectorFile.h"
#include "vtctx/utf8.h"

namespace vtctx {
namespace {

using testing::ReadVectors;
using testing::SplitList;
using testing::Vector;

std::string Hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 0xf]);
  }
  return out.empty() ? "-" : out;
}

std::string_view View(const void* p, size_t n) {
  return std::string_view(static_cast<const char*>(p), n);
}

// A zeroed, 64-byte aligned record of `size` bytes.
struct AlignedRecord {
  explicit AlignedRecord(size_t size) : storage(size / 64) {}
  ThreadContextRecord* get() { return storage.data(); }
  std::vector<ThreadContextRecord> storage;  // value-initialized: all zero
};

TEST(WriterVectors, RecordWriterAndAttributeEncoderProduceTheBytes) {
  for (const Vector& v : ReadVectors("records.vec", "write")) {
    SCOPED_TRACE(v.name);
    const size_t size = static_cast<size_t>(v.Int("size"));
    ASSERT_TRUE(IsValidRecordSize(size));
    AlignedRecord buffer(size);
    ThreadContextRecord* r = buffer.get();
    std::vector<std::string> stored;
    for (const std::string& op : SplitList(v.Field("ops"), ',')) {
      const std::vector<std::string> part = SplitList(op, ':');
      if (part[0] == "ctx") {
        uint8_t trace[16], span[8];
        std::memcpy(trace, Vector::FromHex(part[1]).data(), sizeof trace);
        std::memcpy(span, Vector::FromHex(part[2]).data(), sizeof span);
        WriteTraceContext(r, trace, span, static_cast<uint8_t>(std::stoi(part[3], nullptr, 16)));
      } else if (part[0] == "set") {
        const std::string value = Vector::FromHex(part[2]);
        stored.push_back(std::to_string(
            SetRecordAttribute(r, size, static_cast<uint8_t>(std::stoi(part[1])), value)));
      } else {
        ASSERT_EQ(part[0], "del");
        RemoveRecordAttribute(r, size, static_cast<uint8_t>(std::stoi(part[1])));
      }
    }
    EXPECT_EQ(stored, SplitList(v.Field("stored"), ','));
    EXPECT_EQ(Hex(View(r, kRecordHeaderSize + r->attrs_data_size)), v.Field("result"));
  }
}

// The C++ record view over golden bytes: a moved or resized field reads the wrong bytes here.
TEST(WriterVectors, RecordViewReadsEveryField) {
  for (const Vector& v : ReadVectors("records.vec", "decode")) {
    SCOPED_TRACE(v.name);
    const std::string bytes = v.Bytes("record");
    ASSERT_GE(bytes.size(), kRecordHeaderSize);
    AlignedRecord buffer(kRecordMaxSize);
    ThreadContextRecord* r = buffer.get();
    std::memcpy(r, bytes.data(), bytes.size());
    EXPECT_EQ(Hex(View(r->trace_id, sizeof r->trace_id)), v.Field("trace_id"));
    EXPECT_EQ(Hex(View(r->span_id, sizeof r->span_id)), v.Field("span_id"));
    EXPECT_EQ(r->valid, v.Int("valid"));
    EXPECT_EQ(Hex(View(&r->trace_flags, 1)), v.Field("flags"));
    EXPECT_EQ(kRecordHeaderSize + r->attrs_data_size, bytes.size());
    EXPECT_EQ(View(r->attrs_data, r->attrs_data_size), bytes.substr(kRecordHeaderSize));
  }
}

TEST(WriterVectors, Utf8Validation) {
  for (const Vector& v : ReadVectors("utf8.vec", "valid")) {
    EXPECT_TRUE(IsValidUtf8(v.Bytes("bytes"))) << v.name;
  }
  for (const Vector& v : ReadVectors("utf8.vec", "invalid")) {
    EXPECT_FALSE(IsValidUtf8(v.Bytes("bytes"))) << v.name;
  }
}

TEST(WriterVectors, Utf8PrefixAtCodePointBoundary) {
  for (const Vector& v : ReadVectors("utf8.vec", "prefix")) {
    EXPECT_EQ(Utf8PrefixLength(v.Bytes("bytes"), static_cast<size_t>(v.Int("max"))),
              static_cast<size_t>(v.Int("length")))
        << v.name;
  }
}

TEST(WriterVectors, Utf16ToUtf8) {
  for (const Vector& v : ReadVectors("utf8.vec", "utf16")) {
    SCOPED_TRACE(v.name);
    const std::string unit_bytes = v.Bytes("units");  // big-endian pairs
    std::vector<uint16_t> units;
    for (size_t i = 0; i < unit_bytes.size(); i += 2) {
      units.push_back(static_cast<uint16_t>(static_cast<uint8_t>(unit_bytes[i]) << 8 |
                                            static_cast<uint8_t>(unit_bytes[i + 1])));
    }
    std::string out(static_cast<size_t>(v.Int("max")), '\0');
    const Utf16ToUtf8Result r =
        Utf16ToUtf8(units.data(), units.size(), v.Int("more") != 0, out.data(), out.size());
    EXPECT_EQ(Hex(out.substr(0, r.bytes)), v.Field("bytes"));
  }
}

TEST(WriterVectors, ProcessContextEncoderProducesThePayloads) {
  for (const Vector& v : ReadVectors("processContext.vec", "encode")) {
    SCOPED_TRACE(v.name);
    std::vector<StringAttribute> resource;
    for (const std::string& kv : SplitList(v.Field("resource"), ',')) {
      const std::vector<std::string> part = SplitList(kv, ':');
      ASSERT_EQ(part.size(), 2u);
      resource.push_back({Vector::FromHex(part[0]), Vector::FromHex(part[1])});
    }
    std::vector<std::string> keys;
    for (const std::string& k : SplitList(v.Field("keys"), ',')) keys.push_back(Vector::FromHex(k));
    std::string payload;
    ASSERT_EQ(EncodeProcessContext(resource, keys, &payload), "");
    EXPECT_EQ(Hex(payload), v.Field("bytes"));
  }
}

TEST(WriterVectors, StrictDecoderAcceptsEncodedAndRejectsMalformedPayloads) {
  for (const Vector& v : ReadVectors("processContext.vec", "encode")) {
    SCOPED_TRACE(v.name);
    const std::optional<testing::DecodedContext> ctx =
        testing::DecodeProcessContext(v.Bytes("bytes"));
    ASSERT_TRUE(ctx.has_value());
    const testing::DecodedValue* map = ctx->Extra(kAttributeKeyMapKey);
    ASSERT_NE(map, nullptr);
    std::vector<std::string> keys;
    for (const std::string& k : SplitList(v.Field("keys"), ',')) keys.push_back(Vector::FromHex(k));
    EXPECT_EQ(map->array_values, keys);
  }
  for (const Vector& v : ReadVectors("processContext.vec", "malformed")) {
    EXPECT_FALSE(testing::DecodeProcessContext(v.Bytes("bytes")).has_value()) << v.name;
  }
}

}  // namespace
}  // namespace vtctx
