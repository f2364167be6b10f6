// The load report's golden vectors (protocol/vectors/loadReport.vec) through the protocol's
// encoder and decoder, which the agent writes with and the reader reads with.
#include <gtest/gtest.h>

#include "vectorFile.h"
#include "vtctx/loadReport.h"

namespace vtctx {
namespace {

using testing::ReadVectors;
using testing::SplitList;
using testing::Vector;

std::vector<std::pair<std::string, std::string>> Fields(const Vector& v) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const std::string& item : SplitList(v.Field("fields"), ',')) {
    const size_t colon = item.find(':');
    out.emplace_back(item.substr(0, colon), Vector::FromHex(item.substr(colon + 1)));
  }
  return out;
}

TEST(LoadReportVectors, LinesDecodeToTheirFieldsAndEncodeBack) {
  int n = 0;
  for (const char* kind : {"active", "inactive"}) {
    for (const Vector& v : ReadVectors("loadReport.vec", kind)) {
      protocol::LoadReport decoded;
      std::string error;
      ASSERT_TRUE(protocol::DecodeLoadReport(v.Bytes("line"), &decoded, &error))
          << v.name << ": " << error;
      EXPECT_EQ(decoded.active, std::string(kind) == "active") << v.name;
      EXPECT_EQ(decoded.fields, Fields(v)) << v.name;
      EXPECT_EQ(decoded.text, v.Bytes("text")) << v.name;
      EXPECT_EQ(protocol::EncodeLoadReport(decoded), v.Bytes("line")) << v.name;
      ++n;
    }
  }
  EXPECT_GE(n, 5);
}

TEST(LoadReportVectors, EncoderKeepsEveryLineDecodable) {
  const std::vector<Vector> vectors = ReadVectors("loadReport.vec", "encode");
  ASSERT_FALSE(vectors.empty());
  for (const Vector& v : vectors) {
    protocol::LoadReport report;
    report.active = v.Int("active") != 0;
    report.fields = Fields(v);
    report.text = v.Bytes("text");
    EXPECT_EQ(protocol::EncodeLoadReport(report), v.Bytes("line")) << v.name;
  }
}

TEST(LoadReportVectors, MalformedLinesAreRefused) {
  const std::vector<Vector> vectors = ReadVectors("loadReport.vec", "malformed");
  ASSERT_GE(vectors.size(), 5u);
  for (const Vector& v : vectors) {
    protocol::LoadReport decoded;
    std::string error;
    EXPECT_FALSE(protocol::DecodeLoadReport(v.Bytes("line"), &decoded, &error)) << v.name;
    EXPECT_FALSE(error.empty()) << v.name;
  }
}

}  // namespace
}  // namespace vtctx
