// The one rule for a target's text (untrustedText.h) and each output's rendering of what it
// refuses: lines (Printable), names (SafeName, folded frames), JSON strings, the flame graph's
// XML, the stderr guard; and the --output file that another user cannot redirect (outputFile.h).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "output/flameGraphSvg.h"
#include "output/guardedStderr.h"
#include "output/outputFile.h"
#include "target/recordFormat.h"
#include "target/untrustedText.h"
#include "vtctx/utf8.h"

namespace vtctx::reader {
namespace {

// ESC, CSI as U+009B (C1, valid UTF-8), DEL, a lone continuation byte, a cut 3-byte sequence.
const std::string kHostile =
    "a\x1b[2Jb\xc2\x9b"
    "31mc\x7f"
    "d\x80"
    "e\xe4\xb8";

std::vector<std::pair<std::string, bool>> Units(const std::string& text) {
  std::vector<std::pair<std::string, bool>> out;
  ScanTargetText(
      text, [&](absl::string_view run) { out.emplace_back(std::string(run), true); },
      [&](absl::string_view unit) { out.emplace_back(std::string(unit), false); });
  return out;
}

TEST(UntrustedText, OneRuleForC0C1DelAndInvalidUtf8) {
  const std::vector<std::pair<std::string, bool>> expected = {
      {"a", true},    {"\x1b", false}, {"[2Jb", true}, {"\xc2\x9b", false},
      {"31mc", true}, {"\x7f", false}, {"d", true},    {"\x80", false},
      {"e", true},    {"\xe4", false}, {"\xb8", false}};
  EXPECT_EQ(Units(kHostile), expected);
  EXPECT_TRUE(IsShowableText("café 計算 ü"));
  EXPECT_FALSE(IsShowableText(kHostile));
  EXPECT_TRUE(IsShowableText("\xc2\xa0"));  // U+00A0, the first character after C1
}

TEST(UntrustedText, CutsNeverSplitACharacter) {
  const std::string cjk = "計算計算";  // 3 bytes a character
  EXPECT_EQ(TextPrefixLength(cjk, 4), 3u);
  EXPECT_EQ(TextPrefixLength(cjk, 6), 6u);
  EXPECT_EQ(TextPrefixLength(cjk, 2), 0u);
  EXPECT_EQ(TextPrefixLength("ab\xff\xff", 3), 3u);  // invalid bytes are units of their own
  EXPECT_EQ(Printable(cjk, 4), "計...");
  EXPECT_EQ(SafeName(cjk, 7), "計算...");
}

TEST(UntrustedText, EachOutputRendersRefusedUnits) {
  EXPECT_EQ(Printable(kHostile), "a\\x1b[2Jb\\xc2\\x9b31mc\\x7fd\\x80e\\xe4\\xb8");
  EXPECT_EQ(SafeName(kHostile, 100), "a_[2Jb_31mc_d_e__");
  std::string json;
  AppendJsonString(json, kHostile);
  EXPECT_EQ(json, "\"a\\u001b[2Jb\\u009b31mc\\u007fd\\ufffde\\ufffd\\ufffd\"");
  std::string text;
  AppendSafeText(text, "http route\xc2\x9b");
  EXPECT_EQ(text, "http_route_");
}

TEST(GuardedStderr, EscapesWhatSlipsThroughAndKeepsLinesAndSplitCharacters) {
  std::string carry;
  EXPECT_EQ(GuardText("ok\tline\n\x1b[31m\xc2\x9b", carry), "ok\tline\n\\x1b[31m\\xc2\\x9b");
  EXPECT_TRUE(carry.empty());
  // "計" split across two writes: held, then written whole.
  EXPECT_EQ(GuardText("x\xe8\xa8", carry), "x");
  EXPECT_EQ(carry, "\xe8\xa8");
  EXPECT_EQ(GuardText("\x88y\\x41", carry), "計y\\x41");  // a backslash is left as it is
  EXPECT_TRUE(carry.empty());
}

// A minimal check that a document is well-formed XML as far as characters go: valid UTF-8, no
// C0 control but tab, newline and return, and every '&' starting one of the references we write.
void ExpectXmlCharacters(const std::string& svg) {
  EXPECT_TRUE(IsValidUtf8(svg));
  for (size_t i = 0; i < svg.size(); ++i) {
    const auto c = static_cast<unsigned char>(svg[i]);
    EXPECT_FALSE(c < 0x20 && c != '\t' && c != '\n' && c != '\r') << "control byte at " << i;
    if (c == '&') {
      const std::string rest = svg.substr(i, 6);
      EXPECT_TRUE(rest.rfind("&lt;", 0) == 0 || rest.rfind("&gt;", 0) == 0 ||
                  rest.rfind("&amp;", 0) == 0 || rest.rfind("&quot;", 0) == 0 ||
                  rest.rfind("&#39;", 0) == 0)
          << rest;
    }
  }
}

TEST(FlameGraph, IsWellFormedWhateverTheNamesAndCutsNoCharacter) {
  std::string cjk_method = "long 計算.";
  for (int i = 0; i < 200; ++i) cjk_method += "計";
  cjk_method += "(int)";
  std::map<std::string, uint64_t> folded;
  folded["trace_1;" + cjk_method] = 3;
  folded["trace_1;" + kHostile + "&<>\"'"] = 1;
  const std::string svg = RenderFlameGraph(FoldedProfile::FromLines(folded), "title " + kHostile);
  ExpectXmlCharacters(svg);
  EXPECT_NE(svg.find("計計.."), std::string::npos);  // the label cut between two characters
}

class OutputFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/vtctx-output-test-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    dir_ = dir;
  }
  void TearDown() override { EXPECT_EQ(system(("rm -rf " + dir_).c_str()), 0); }
  std::string Read(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  std::string dir_;
};

TEST_F(OutputFileTest, WritesAndReplacesAFileOfItsOwn) {
  const std::string path = dir_ + "/out.svg";
  ASSERT_TRUE(WriteOutputFile(path, "first, longer").ok());
  ASSERT_TRUE(WriteOutputFile(path, "second").ok());
  EXPECT_EQ(Read(path), "second");
}

TEST_F(OutputFileTest, RefusesSymlinksHardLinksAndFifos) {
  const std::string secret = dir_ + "/secret";
  ASSERT_TRUE(WriteOutputFile(secret, "root's").ok());
  ASSERT_EQ(chmod(secret.c_str(), 0600), 0);
  const std::string symbolic = dir_ + "/link.svg";
  ASSERT_EQ(symlink(secret.c_str(), symbolic.c_str()), 0);
  absl::Status s = WriteOutputFile(symbolic, "svg");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("symbolic link"), absl::string_view::npos) << s;
  const std::string hard = dir_ + "/hard.svg";
  ASSERT_EQ(::link(secret.c_str(), hard.c_str()), 0);
  s = WriteOutputFile(hard, "svg");
  EXPECT_NE(s.message().find("2 links"), absl::string_view::npos) << s;
  EXPECT_EQ(Read(secret), "root's");
  const std::string fifo = dir_ + "/fifo.svg";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_FALSE(WriteOutputFile(fifo, "svg").ok());  // at once: never blocks on a FIFO
}

TEST_F(OutputFileTest, RefusesAnotherUsersFile) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root (chown)";
  const std::string planted = dir_ + "/planted.svg";
  ASSERT_TRUE(WriteOutputFile(planted, "theirs").ok());
  ASSERT_EQ(chown(planted.c_str(), 65534, 65534), 0);
  const absl::Status s = WriteOutputFile(planted, "svg");
  EXPECT_NE(s.message().find("uid 65534"), absl::string_view::npos) << s;
  EXPECT_EQ(Read(planted), "theirs");
}

}  // namespace
}  // namespace vtctx::reader
