// The record layout is the interoperability contract: these tests pin it byte by byte, beyond the
// static_asserts in threadContextRecord.h.
#include <gtest/gtest.h>

#include <cstring>

#include "recordWriter.h"
#include "threadContextRecord.h"

namespace vtctx {
namespace {

TEST(RecordLayout, OffsetsAndSizeMatchOtep4947) {
  EXPECT_EQ(offsetof(ThreadContextRecord, trace_id), 0u);
  EXPECT_EQ(offsetof(ThreadContextRecord, span_id), 16u);
  EXPECT_EQ(offsetof(ThreadContextRecord, valid), 24u);
  EXPECT_EQ(offsetof(ThreadContextRecord, trace_flags), 25u);
  EXPECT_EQ(offsetof(ThreadContextRecord, attrs_data_size), 26u);
  EXPECT_EQ(offsetof(ThreadContextRecord, attrs_data), 28u);
  EXPECT_EQ(sizeof(ThreadContextRecord), 64u);
  EXPECT_EQ(alignof(ThreadContextRecord), 64u);
  EXPECT_EQ(sizeof(vtctx_record_header), 28u);
}

// The interop vector: trace all 0x01, span all 0x02, valid=1, attrs (0,"foo") and (1,"bar").
TEST(RecordLayout, InteropVectorBytes) {
  ThreadContextRecord r{};
  std::memset(r.trace_id, 0x01, 16);
  std::memset(r.span_id, 0x02, 8);
  r.valid = 1;
  r.attrs_data_size = 10;
  const uint8_t attrs[] = {0, 3, 'f', 'o', 'o', 1, 3, 'b', 'a', 'r'};
  std::memcpy(r.attrs_data, attrs, sizeof attrs);

  uint8_t expected[64] = {};
  std::memset(expected, 0x01, 16);
  std::memset(expected + 16, 0x02, 8);
  expected[24] = 1;
  expected[26] = 10;  // little-endian host order
  std::memcpy(expected + 28, attrs, sizeof attrs);
  EXPECT_EQ(std::memcmp(&r, expected, 64), 0);
}

// W3C traceparent 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01: ids in network order.
TEST(RecordLayout, W3cExampleInNetworkOrder) {
  const uint8_t trace[16] = {0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6,
                             0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36};
  const uint8_t span[8] = {0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7};
  ThreadContextRecord r{};
  WriteTraceContext(&r, trace, span, 0x01);
  const auto* bytes = reinterpret_cast<const uint8_t*>(&r);
  EXPECT_EQ(bytes[0], 0x4b);
  EXPECT_EQ(bytes[15], 0x36);
  EXPECT_EQ(bytes[16], 0x00);
  EXPECT_EQ(bytes[17], 0xf0);
  EXPECT_EQ(bytes[23], 0xb7);
  EXPECT_EQ(bytes[24], 1);
  EXPECT_EQ(bytes[25], 0x01);
}

TEST(RecordLayout, ValidRecordSizes) {
  EXPECT_TRUE(IsValidRecordSize(64));
  EXPECT_TRUE(IsValidRecordSize(128));
  EXPECT_TRUE(IsValidRecordSize(640));
  EXPECT_FALSE(IsValidRecordSize(0));
  EXPECT_FALSE(IsValidRecordSize(32));
  EXPECT_FALSE(IsValidRecordSize(100));
  EXPECT_FALSE(IsValidRecordSize(704));
}

}  // namespace
}  // namespace vtctx
