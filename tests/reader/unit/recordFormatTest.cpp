// Field semantics of the CLI's context output, with the OTEP interop vectors.
#include <gtest/gtest.h>

#include <cstring>

#include "target/recordFormat.h"

namespace vtctx::reader {
namespace {

ContextView W3cExample() {
  // traceparent 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01
  static const uint8_t trace[16] = {0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6,
                                    0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36};
  static const uint8_t span[8] = {0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7};
  ContextView ctx;
  ctx.status = VTCTX_CTX_OK;
  ctx.record = 0x7f0000001000;
  std::memcpy(ctx.header.trace_id, trace, 16);
  std::memcpy(ctx.header.span_id, span, 8);
  ctx.header.valid = 1;
  ctx.header.trace_flags = 1;
  return ctx;
}

TEST(RecordFormat, W3cExample) {
  const ContextView ctx = W3cExample();
  EXPECT_EQ(TraceIdHex(ctx), "4bf92f3577b34da6a3ce929d0e0e4736");
  EXPECT_EQ(SpanIdHex(ctx), "00f067aa0ba902b7");
  std::string json;
  AppendContextJson(json, ctx);
  EXPECT_EQ(json,
            "\"record\":\"0x7f0000001000\",\"valid\":1,"
            "\"trace_id\":\"4bf92f3577b34da6a3ce929d0e0e4736\",\"span_id\":\"00f067aa0ba902b7\","
            "\"trace_flags\":\"01\",\"context\":\"ok\"");
}

TEST(RecordFormat, RejectsValidZeroAndTwo) {
  for (uint8_t valid : {0, 2}) {
    ContextView ctx = W3cExample();
    ctx.header.valid = valid;
    EXPECT_FALSE(IsValidContext(ctx));
    EXPECT_EQ(TraceIdHex(ctx), "");
    EXPECT_EQ(SpanIdHex(ctx), "");
    std::string json;
    AppendContextJson(json, ctx);
    EXPECT_NE(json.find("\"valid\":" + std::to_string(valid)), std::string::npos) << json;
    EXPECT_NE(json.find("\"trace_id\":\"\""), std::string::npos) << json;
    EXPECT_NE(json.find("\"trace_flags\":\"\""), std::string::npos) << json;
  }
}

TEST(RecordFormat, NoRecord) {
  ContextView ctx;
  ctx.status = VTCTX_CTX_NULL;
  std::string json;
  AppendContextJson(json, ctx);
  EXPECT_EQ(json,
            "\"record\":\"\",\"valid\":0,\"trace_id\":\"\",\"span_id\":\"\",\"trace_flags\":\"\","
            "\"context\":\"null\"");
  std::string text;
  AppendContextText(text, ctx);
  EXPECT_EQ(text, "no context (null)");
}

// OTEP 4947: both ids must be set; half a context (one id all zero) is no context at all.
TEST(RecordFormat, AllZeroIdIsNone) {
  for (bool trace : {true, false}) {
    ContextView ctx = W3cExample();
    if (trace) {
      std::memset(ctx.header.trace_id, 0, 16);
    } else {
      std::memset(ctx.header.span_id, 0, 8);
    }
    EXPECT_FALSE(IsValidContext(ctx));
    EXPECT_EQ(TraceIdHex(ctx), "");
    EXPECT_EQ(SpanIdHex(ctx), "");
    std::string text;
    AppendContextText(text, ctx);
    EXPECT_NE(text.find("no context (record 0x"), std::string::npos) << text;
    EXPECT_NE(text.find("all zero"), std::string::npos) << text;
  }
}

TEST(RecordFormat, OtepAttrsVector) {
  // The 64-byte interop record: entries (0,3,"foo") and (1,3,"bar").
  const uint8_t attrs[] = {0, 3, 'f', 'o', 'o', 1, 3, 'b', 'a', 'r'};
  ContextView ctx = W3cExample();
  ctx.header.attrs_data_size = sizeof attrs;
  ctx.attrs = attrs;
  auto decoded = DecodeAttrs(attrs);
  ASSERT_EQ(decoded.size(), 2u);
  EXPECT_EQ(decoded[0], "foo");
  EXPECT_EQ(decoded[1], "bar");
  std::string json;
  AppendContextJson(json, ctx);
  EXPECT_NE(json.find(",\"attrs\":{\"0\":\"foo\",\"1\":\"bar\"}"), std::string::npos) << json;
}

TEST(RecordFormat, AttrsLastKeyWinsAndTruncationStops) {
  const uint8_t attrs[] = {2, 3, 'G', 'E', 'T', 2, 4, 'P', 'O', 'S', 'T', 5, 9, 'x'};
  auto decoded = DecodeAttrs(attrs);
  ASSERT_EQ(decoded.size(), 1u);
  EXPECT_EQ(decoded[2], "POST");
}

TEST(RecordFormat, JsonStringEscaping) {
  std::string out;
  AppendJsonString(out, std::string("a\"b\\c\n\x01", 7));
  EXPECT_EQ(out, "\"a\\\"b\\\\c\\u000a\\u0001\"");
  out.clear();
  AppendJsonString(out, "caf\xc3\xa9");  // valid UTF-8 passes through
  EXPECT_EQ(out, "\"caf\xc3\xa9\"");
  out.clear();
  AppendJsonString(out, "\xff\xc3");  // invalid bytes become U+FFFD
  EXPECT_EQ(out, "\"\\ufffd\\ufffd\"");
}

}  // namespace
}  // namespace vtctx::reader
