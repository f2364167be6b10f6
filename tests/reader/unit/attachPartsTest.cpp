// The attach's pure parts: /proc/<pid>/status, the attach protocol's bytes, the agent's report
// line, where the agent is found beside the reader.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "hotspot/agentLoad.h"
#include "hotspot/hotspotAttach.h"
#include "hotspot/jvmProcess.h"

namespace vtctx::reader {
namespace {

TEST(ProcStatus, NamespacePidCredentialsAndSigquit) {
  const char* text =
      "Name:\tjava\nTgid:\t4242\nNgid:\t0\nPid:\t4242\nUid:\t1000\t1001\t1001\t1001\n"
      "Gid:\t50\t51\t51\t51\nNSpid:\t4242\t7\nSigBlk:\t0000000000000000\n"
      "SigIgn:\t0000000000000000\nSigCgt:\t2000000181005ccf\n";
  absl::StatusOr<ProcStatus> s = ParseProcStatus(text);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->nspid, 7);  // the innermost namespace's
  EXPECT_EQ(s->euid, 1001u);
  EXPECT_EQ(s->egid, 51u);
  EXPECT_TRUE(s->catches_sigquit);  // bit 2 of 0x...ccf
  EXPECT_FALSE(s->ignores_sigquit);
  absl::StatusOr<ProcStatus> sleeper = ParseProcStatus(
      "Tgid:\t9\nUid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\nNSpid:\t9\nSigIgn:\t0000000000000004\n"
      "SigCgt:\t0000000000000000\n");
  ASSERT_TRUE(sleeper.ok());
  EXPECT_EQ(sleeper->nspid, 9);
  EXPECT_FALSE(sleeper->catches_sigquit);
  EXPECT_TRUE(sleeper->ignores_sigquit);
  EXPECT_FALSE(ParseProcStatus("Name:\tx\n").ok());
}

TEST(AttachProtocol, RequestBytesAndReplies) {
  absl::StatusOr<std::string> request = AttachRequest("load", {"/a.so", "true", "x=1"});
  ASSERT_TRUE(request.ok());
  EXPECT_EQ(*request, std::string("1\0load\0/a.so\0true\0x=1\0", 22));
  EXPECT_FALSE(AttachRequest("jcmd", {std::string(1025, 'a'), "", ""}).ok());
  absl::StatusOr<AttachReply> ok = ParseAttachReply(7, "0\nreturn code: 0\n");
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->code, 0);
  EXPECT_EQ(ok->output, "return code: 0\n");
  absl::StatusOr<AttachReply> bad = ParseAttachReply(7, "\x1b[2Jgotcha");
  ASSERT_FALSE(bad.ok());
  // What the target sent is shown escaped, never as a terminal control sequence.
  EXPECT_EQ(bad.status().message(), "pid 7 answered the attach with '\\x1b[2Jgotcha'");
}

TEST(AgentReport, ParsesActiveAndInactiveLines) {
  absl::StatusOr<AgentReport> a = ParseAgentReport(
      "active vtctx=0.1.0 load=attached java=25.0.3+9-LTS record_size=64 records=3 bind=use "
      "options=log=off,x=a b");
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_TRUE(a->active);
  EXPECT_EQ(a->fields["java"], "25.0.3+9-LTS");
  EXPECT_EQ(a->text, "log=off,x=a b");
  EXPECT_EQ(DescribeAgentReport(*a),
            "vtctx 0.1.0 active (attached now; Java 25.0.3+9-LTS; 64-byte records, 3 handed out; "
            "bind=use; options 'log=off,x=a b')");
  absl::StatusOr<AgentReport> i =
      ParseAgentReport("inactive vtctx=0.1.0 reason=unknown option 'x' (valid keys: a, b)");
  ASSERT_TRUE(i.ok()) << i.status();
  EXPECT_FALSE(i->active);
  EXPECT_EQ(i->text, "unknown option 'x' (valid keys: a, b)");
  EXPECT_FALSE(ParseAgentReport("").ok());
  EXPECT_FALSE(ParseAgentReport("active vtctx=0.1.0").ok());  // no options=
  EXPECT_FALSE(ParseAgentReport("hello").ok());
  // Untrusted bytes in a report are escaped in the description.
  absl::StatusOr<AgentReport> e = ParseAgentReport("inactive vtctx=0\x1b[31m reason=a\rb");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(DescribeAgentReport(*e), "vtctx 0\\x1b[31m inactive: a\\x0db");
  AgentReport again;
  again.active = true;
  again.fields = {{"vtctx", "0.1.0"}, {"load", "again"}, {"loaded", "startup"}};
  again.text = "log=info";
  EXPECT_EQ(DescribeAgentReport(again),
            "vtctx 0.1.0 active (already active; loaded at startup; options 'log=info')");
}

TEST(AgentBesideReader, InstallLayoutThenBuildTree) {
  char dir[] = "/tmp/vtctx-beside-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string root = dir;
  for (const char* sub : {"/bin", "/lib", "/agent", "/reader-bpf"}) {
    mkdir((root + sub).c_str(), 0755);
  }
  EXPECT_EQ(AgentBesideReader(root + "/bin/vtctx-reader"), "");
  std::ofstream(root + "/agent/libvtctx.so") << "x";
  char real[PATH_MAX];
  ASSERT_NE(realpath(dir, real), nullptr);
  EXPECT_EQ(AgentBesideReader(root + "/reader-bpf/vtctx-reader"),
            std::string(real) + "/agent/libvtctx.so");
  std::ofstream(root + "/lib/libvtctx.so") << "x";
  EXPECT_EQ(AgentBesideReader(root + "/bin/vtctx-reader"), std::string(real) + "/lib/libvtctx.so");
  for (const char* f : {"/lib/libvtctx.so", "/agent/libvtctx.so"}) unlink((root + f).c_str());
  for (const char* sub : {"/bin", "/lib", "/agent", "/reader-bpf"}) rmdir((root + sub).c_str());
  rmdir(dir);
}

}  // namespace
}  // namespace vtctx::reader
