#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "loadReport.h"
#include "vtctx/version.h"

namespace vtctx {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(LoadReport, ActiveLineHasEveryFieldAndTheOptionsLast) {
  ActiveReport r{"attached", "25.0.1", 256, 12, "use", "report=/tmp/r,log=off, x"};
  EXPECT_EQ(ActiveReportLine(r), "active vtctx=" VTCTX_VERSION
                                 " load=attached java=25.0.1 record_size=256 records=12 bind=use "
                                 "options=report=/tmp/r,log=off, x");
}

TEST(LoadReport, OptionsInForceLeaveOutTheReportFile) {
  EXPECT_EQ(WithoutReport("log=off,report=/tmp/r,bind=use"), "log=off,bind=use");
  EXPECT_EQ(WithoutReport("report=/tmp/r"), "");
  EXPECT_EQ(WithoutReport(nullptr), "");
  EXPECT_EQ(WithoutReport("a=1,,b=2,"), "a=1,b=2");
}

TEST(LoadReport, InactiveLineKeepsTheReasonOnOneLine) {
  EXPECT_EQ(InactiveReportLine("no JVMTI 21\nsecond line"),
            "inactive vtctx=" VTCTX_VERSION " reason=no JVMTI 21 second line");
}

TEST(LoadReport, WritesOneLineAndReplacesOldContent) {
  char dir[] = "/tmp/vtctx-load-report-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string path = std::string(dir) + "/report";
  // The attacher creates the file; the agent never does.
  EXPECT_NE(WriteLoadReport(path, "x"), "");
  std::ofstream(path) << "";
  ASSERT_EQ(WriteLoadReport(path, "a much longer first line than the second"), "");
  ASSERT_EQ(WriteLoadReport(path, "inactive vtctx=x reason=y"), "");
  EXPECT_EQ(ReadFile(path), "inactive vtctx=x reason=y\n");
  EXPECT_NE(WriteLoadReport(std::string(dir) + "/missing/report", "x").find("cannot use"),
            std::string::npos);
  unlink(path.c_str());
  rmdir(dir);
}

}  // namespace
}  // namespace vtctx
