// Naming record attributes through a key map, and how names and values appear in JSON and text.
#include <gtest/gtest.h>

#include <cstring>

#include "target/attributeNames.h"
#include "target/recordFormat.h"

namespace vtctx::reader {
namespace {

std::vector<uint8_t> Entries(std::initializer_list<std::pair<uint8_t, std::string>> entries) {
  std::vector<uint8_t> out;
  for (const auto& [index, value] : entries) {
    out.push_back(index);
    out.push_back(static_cast<uint8_t>(value.size()));
    out.insert(out.end(), value.begin(), value.end());
  }
  return out;
}

std::string Labels(const std::vector<NamedAttribute>& attrs) {
  std::string out;
  for (const NamedAttribute& a : attrs) out += a.label + "=" + a.value + ";";
  return out;
}

TEST(AttributeNames, OtepVectorWithAPartialKeyMap) {
  const AttributeNames names({"method"});
  const auto attrs = Entries({{0, "foo"}, {1, "bar"}});
  const auto named = NameAttributes(attrs, names);
  EXPECT_EQ(Labels(named), "method=foo;#1=bar;");
  EXPECT_TRUE(named[0].named);
  EXPECT_FALSE(named[1].named);
  EXPECT_TRUE(HasUnnamedIndex(attrs, names));
  EXPECT_FALSE(HasUnnamedIndex(attrs, AttributeNames({"method", "route"})));
  EXPECT_EQ(Labels(NameAttributes(attrs, AttributeNames())), "#0=foo;#1=bar;");
}

TEST(AttributeNames, LastEntryWinsAndTruncationStops) {
  const AttributeNames names({"a", "b", "c"});
  auto attrs = Entries({{2, "one"}, {0, "x"}, {2, "two"}});
  attrs.insert(attrs.end(), {1, 9, 'p', 'a'});  // truncated entry: not an attribute
  EXPECT_EQ(Labels(NameAttributes(attrs, names)), "a=x;c=two;");
  // The truncated entry's index would be unnamed by a 1-key map, but it is not an entry.
  auto truncated = Entries({{0, "x"}});
  truncated.insert(truncated.end(), {7, 3, 'a'});
  EXPECT_FALSE(HasUnnamedIndex(truncated, AttributeNames({"a"})));
  EXPECT_TRUE(NameAttributes(std::vector<uint8_t>{5}, names).empty());  // a lone byte
}

TEST(AttributeNames, ANameGivenToTwoIndexesKeepsTheHigherIndex) {
  const AttributeNames names({"dup", "other", "dup"});
  EXPECT_EQ(Labels(NameAttributes(Entries({{2, "late"}, {0, "early"}}), names)), "dup=late;");
}

TEST(AttributeNames, JsonCarriesIndexesAndNames) {
  ContextView ctx;
  ctx.status = VTCTX_CTX_OK;
  ctx.record = 0x1000;
  ctx.header.valid = 1;
  std::memset(ctx.header.trace_id, 1, 16);
  std::memset(ctx.header.span_id, 2, 8);
  // A value with a quote and an invalid byte, a key name that needs escaping.
  const auto attrs = Entries({{0, "/a\"b"}, {1, "\xff"}, {3, "z"}});
  ctx.attrs = attrs;
  const AttributeNames names({"http.route", "we\"ird", "unused"});
  std::string json;
  AppendContextJson(json, ctx, &names);
  EXPECT_NE(json.find(",\"attrs\":{\"0\":\"/a\\\"b\",\"1\":\"\\ufffd\",\"3\":\"z\"},"
                      "\"attributes\":{\"http.route\":\"/a\\\"b\",\"we\\\"ird\":\"\\ufffd\","
                      "\"#3\":\"z\"}"),
            std::string::npos)
      << json;
  std::string text;
  AppendContextText(text, ctx, &names);
  EXPECT_EQ(text,
            "trace=01010101010101010101010101010101 span=0202020202020202 flags=00 "
            "http.route=\"/a\\\"b\" we\"ird=\"\\ufffd\" #3=\"z\"");
  // No attributes without a valid record.
  ctx.header.valid = 0;
  json.clear();
  AppendContextJson(json, ctx, &names);
  EXPECT_EQ(json.find("attributes"), std::string::npos) << json;
}

TEST(AttributeNames, SafeTextForNames) {
  std::string out;
  AppendSafeText(out, std::string("a b\n\xff\xc3\xa9;", 8));
  EXPECT_EQ(out, "a_b__\xc3\xa9;");
}

}  // namespace
}  // namespace vtctx::reader
