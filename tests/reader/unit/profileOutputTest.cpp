// What `profile` writes: the JIT-name merge of two perf maps, the pprof encoding (read back with
// the reader's own wire decoder here; reader.jvm_pprof reads real output with google/pprof), the
// SVG flame graph.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "hotspot/jitCodeNames.h"
#include "output/flameGraphSvg.h"
#include "output/pprofWriter.h"
#include "vtctx/protobufWire.h"

namespace vtctx::reader {
namespace {

using wire::WireField;
using wire::WireReader;
using wire::WireType;

std::string NameAt(const SymbolTable& t, uint64_t address) {
  const std::optional<SymbolRange> r = t.Find(address);
  return r ? std::string(r->name) : "";
}

TEST(MergePerfMaps, KeepsStableNamesAndRefusesReusedSpace) {
  const SymbolTable start = ParsePerfMap(
      "1000 100 long A.stays()\n2000 100 long B.freed()\n3000 100 long C.replaced()\n"
      "5000 80 Interpreter\n");
  const SymbolTable end = ParsePerfMap(
      "1000 100 long A.stays()\n3000 40 long D.inTheGap()\n4000 100 long E.new()\n"
      "5000 80 Interpreter\n");
  const SymbolTable merged = MergePerfMaps(start, end);
  EXPECT_EQ(NameAt(merged, 0x1050), "long A.stays()");
  EXPECT_EQ(NameAt(merged, 0x2050), "long B.freed()");  // freed, space not reused
  EXPECT_EQ(NameAt(merged, 0x3010), kUnknownJit);       // C then D at the same place
  EXPECT_EQ(NameAt(merged, 0x4050), "long E.new()");    // compiled during the run
  EXPECT_EQ(NameAt(merged, 0x5010), kInterpreted);
  EXPECT_EQ(NameAt(merged, 0x6000), "");
}

// A hostile perf map: ranges nested in and overlapping one another, as a JVM's user can write
// into /tmp/perf-<pid>.map. The table reads them as Find() always did (a range ends where the
// next begins), which makes the merge one sorted pass (its time against a hostile JVM:
// reader.hostile_input.perf_map_overlap).
TEST(MergePerfMaps, OverlappingRangesAreClippedAndMergeInOnePass) {
  const SymbolTable t = ParsePerfMap("1000 1000 outer\n1100 10 inner\n1100 20 same start\n");
  EXPECT_EQ(t.size(), 2u);                // of the two at 0x1100 the last is kept
  EXPECT_EQ(NameAt(t, 0x10ff), "outer");  // outer ends where the next range begins
  EXPECT_EQ(NameAt(t, 0x1105), "same start");
  EXPECT_EQ(NameAt(t, 0x1120), "");  // past "same start", and outer was clipped
  std::string text;
  for (int i = 0; i < 2000; ++i) {
    absl::StrAppendFormat(&text, "%x %x m%d\n", 0x100000 + i, 0x1000000 - i, i);
  }
  const SymbolTable start = ParsePerfMap(text);
  const SymbolTable end = ParsePerfMap(text);
  const SymbolTable merged = MergePerfMaps(start, end);
  EXPECT_EQ(merged.size(), 2000u);
  EXPECT_EQ(NameAt(merged, 0x100000), "m0");
  EXPECT_EQ(NameAt(merged, 0x100000 + 1999), "m1999");
  EXPECT_EQ(NameAt(merged, 0x100000 + 2000), "m1999");  // the last range keeps its length
}

TEST(MergePerfMaps, AMapPastItsBoundIsCut) {
  std::string text;
  for (int i = 0; i < 10; ++i) absl::StrAppendFormat(&text, "%x 10 m%d\n", 0x1000 + 0x10 * i, i);
  const SymbolTable t = ParsePerfMap(text, 4);
  EXPECT_EQ(t.size(), 4u);
  EXPECT_EQ(t.dropped(), 6u);
}

// The fields of one message, by number.
std::multimap<uint32_t, WireField> Fields(std::span<const uint8_t> bytes) {
  std::multimap<uint32_t, WireField> out;
  WireReader r(bytes);
  while (!r.AtEnd()) {
    WireField f;
    EXPECT_TRUE(r.Next(f));
    out.emplace(f.number, f);
  }
  return out;
}

std::span<const uint8_t> AsBytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

TEST(Pprof, EncodesProfileProto) {
  PprofProfile p;
  p.period_ns = 5025125;
  p.time_nanos = 1700000000000000000;
  p.duration_nanos = 3000000000;
  const PprofFrame leaf = p.Intern({"long A.spin(int)", "[jit]", 0x7f0010});
  const PprofFrame root = p.Intern({"main", "/bin/app", 0x401000});
  p.samples.push_back(
      {{leaf, root}, {{"trace_id", "0af7"}, {"http.route", "/x"}}, {{"thread.id", 42}}, 3});
  p.samples.push_back({{root}, {}, {{"thread.id", 43}}, 1});
  const std::string bytes = EncodePprof(p);
  auto top = Fields(AsBytes(bytes));
  std::vector<std::string> strings;
  for (auto [it, end] = top.equal_range(6); it != end; ++it) {
    strings.emplace_back(reinterpret_cast<const char*>(it->second.bytes.data()),
                         it->second.bytes.size());
  }
  ASSERT_FALSE(strings.empty());
  EXPECT_EQ(strings[0], "");
  EXPECT_EQ(top.count(2), 2u);  // samples
  EXPECT_EQ(top.count(4), 2u);  // locations: one per distinct frame
  EXPECT_EQ(top.count(5), 2u);  // functions
  EXPECT_EQ(top.count(3), 2u);  // mappings: [jit], /bin/app
  EXPECT_EQ(top.find(12)->second.varint, 5025125u);
  EXPECT_EQ(top.find(10)->second.varint, 3000000000u);
  // First sample: two locations, values {3, 3 * period}, three labels.
  auto sample = Fields(top.find(2)->second.bytes);
  // A packed varint list: varints back to back.
  std::vector<uint64_t> values;
  const std::span<const uint8_t> v = sample.find(2)->second.bytes;
  uint64_t value = 0;
  int shift = 0;
  for (uint8_t b : v) {
    value |= uint64_t{b & 0x7fu} << shift;
    shift += 7;
    if ((b & 0x80) == 0) {
      values.push_back(value);
      value = 0;
      shift = 0;
    }
  }
  EXPECT_EQ(values, (std::vector<uint64_t>{3, 3 * 5025125u}));
  EXPECT_EQ(sample.count(3), 3u);
  auto label = Fields(sample.find(3)->second.bytes);
  EXPECT_EQ(strings.at(label.find(1)->second.varint), "trace_id");
  EXPECT_EQ(strings.at(label.find(2)->second.varint), "0af7");
}

TEST(Pprof, InlinedFramesAreLinesOfOneLocation) {
  PprofProfile p;
  p.period_ns = 1;
  // One JIT frame at 0x7f0010 where c and b were inlined into a, called from main.
  const PprofFrame c = p.Intern({"long A.c()", "[jit]", 0x7f0010, /*inlined=*/true});
  const PprofFrame b = p.Intern({"long A.b()", "[jit]", 0x7f0010, /*inlined=*/true});
  const PprofFrame a = p.Intern({"long A.a()", "[jit]", 0x7f0010});
  const PprofFrame root = p.Intern({"main", "/bin/app", 0x401000});
  p.samples.push_back({{c, b, a, root}, {}, {}, 1});
  p.samples.push_back({{a, root}, {}, {}, 1});  // a on its own: another location
  const std::string bytes = EncodePprof(p);
  auto top = Fields(AsBytes(bytes));
  EXPECT_EQ(top.count(4), 3u);  // locations: [c, b, a], [a], main
  EXPECT_EQ(top.count(5), 4u);  // functions: c, b, a, main
  std::vector<size_t> lines;
  for (auto [it, end] = top.equal_range(4); it != end; ++it) {
    lines.push_back(Fields(it->second.bytes).count(4));
  }
  std::sort(lines.begin(), lines.end());
  EXPECT_EQ(lines, (std::vector<size_t>{1, 1, 3}));
  // The first sample's stack is two locations: the inlined frames are one.
  auto sample = Fields(top.find(2)->second.bytes);
  EXPECT_EQ(sample.find(1)->second.bytes.size(), 2u);  // two one-byte location ids
}

TEST(FlameGraph, DrawsFramesEscapedAndNamesTheTotal) {
  std::map<std::string, uint64_t> folded{{"trace_ab;span_cd;main;long A.x(int)", 90},
                                         {"trace_ab;span_cd;main;<b&>", 10},
                                         {"no_context;tiny", 0}};
  const std::string svg = RenderFlameGraph(FoldedProfile::FromLines(folded), "t<1>");
  EXPECT_NE(svg.find("<svg xmlns=\"http://www.w3.org/2000/svg\""), std::string::npos);
  EXPECT_NE(svg.find("all (100 samples)"), std::string::npos);
  EXPECT_NE(svg.find("long A.x(int) (90 samples, 90.0%)"), std::string::npos);
  EXPECT_NE(svg.find("&lt;b&amp;&gt; (10 samples"), std::string::npos);
  EXPECT_NE(svg.find("t&lt;1&gt;"), std::string::npos);
  EXPECT_EQ(svg.find("tiny"), std::string::npos);  // zero width: not drawn
  EXPECT_EQ(svg.find("<b&>"), std::string::npos);
}

}  // namespace
}  // namespace vtctx::reader
