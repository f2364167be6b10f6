// The attach's pure parts: HotSpot perf data, /proc/<pid>/status, the agent's report line, where
// the agent is found beside the reader.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "hotspot/agentLoad.h"
#include "hotspot/hsperfData.h"
#include "hotspot/jvmProcess.h"

namespace vtctx::reader {
namespace {

// A little-endian version-2 perf-data image with the given string and long entries.
std::vector<uint8_t> PerfImage(const std::vector<std::pair<std::string, std::string>>& strings,
                               const std::vector<std::pair<std::string, int64_t>>& longs) {
  std::vector<uint8_t> out(32, 0);
  auto put32 = [&](size_t at, int32_t v) { std::memcpy(&out[at], &v, 4); };
  const uint8_t magic[] = {0xca, 0xfe, 0xc0, 0xc0};
  std::memcpy(out.data(), magic, 4);
  out[4] = 1;  // little endian
  out[5] = 2;  // major
  out[7] = 1;  // accessible
  auto entry = [&](const std::string& name, uint8_t type, const std::vector<uint8_t>& data,
                   int32_t vector_length) {
    const size_t at = out.size();
    const size_t name_offset = 20;
    const size_t data_offset = (name_offset + name.size() + 1 + 7) & ~size_t{7};
    const size_t length = (data_offset + data.size() + 7) & ~size_t{7};
    out.resize(at + length, 0);
    put32(at, static_cast<int32_t>(length));
    put32(at + 4, static_cast<int32_t>(name_offset));
    put32(at + 8, vector_length);
    out[at + 12] = type;
    put32(at + 16, static_cast<int32_t>(data_offset));
    std::memcpy(&out[at + name_offset], name.c_str(), name.size() + 1);
    std::memcpy(&out[at + data_offset], data.data(), data.size());
  };
  for (const auto& [name, value] : strings) {
    std::vector<uint8_t> data(value.begin(), value.end());
    data.resize(value.size() + 8, 0);  // HotSpot keeps room after the NUL
    entry(name, 'B', data, static_cast<int32_t>(data.size()));
  }
  for (const auto& [name, value] : longs) {
    std::vector<uint8_t> data(8);
    std::memcpy(data.data(), &value, 8);
    entry(name, 'J', data, 0);
  }
  put32(8, static_cast<int32_t>(out.size()));  // used
  put32(24, 32);                               // entry_offset
  put32(28, static_cast<int32_t>(strings.size() + longs.size()));
  return out;
}

TEST(HsPerfData, ReadsStringsAndLongs) {
  const std::vector<uint8_t> image = PerfImage(
      {{"sun.rt.jvmCapabilities", "1000000000"}, {"java.property.java.version", "21.0.8"}},
      {{"sun.rt.createVmBeginTime", 1234567890123}});
  absl::StatusOr<HsPerfData> perf = ParseHsPerfData(image);
  ASSERT_TRUE(perf.ok()) << perf.status();
  EXPECT_EQ(perf->strings["sun.rt.jvmCapabilities"], "1000000000");
  EXPECT_EQ(perf->strings["java.property.java.version"], "21.0.8");
  EXPECT_EQ(perf->longs["sun.rt.createVmBeginTime"], 1234567890123);
}

TEST(HsPerfData, RefusesWhatIsNotAReadableFile) {
  std::vector<uint8_t> image = PerfImage({{"a", "b"}}, {});
  EXPECT_FALSE(ParseHsPerfData(std::span(image).first(31)).ok());
  std::vector<uint8_t> bad = image;
  bad[0] = 0;
  EXPECT_FALSE(ParseHsPerfData(bad).ok());  // magic
  bad = image;
  bad[5] = 1;
  EXPECT_FALSE(ParseHsPerfData(bad).ok());  // version
  bad = image;
  bad[7] = 0;
  EXPECT_FALSE(ParseHsPerfData(bad).ok());  // still starting
  // Every truncation of the used size is an error or a subset, never a read past the end.
  for (size_t cut = 32; cut < image.size(); ++cut) {
    std::vector<uint8_t> shorter(image.begin(), image.begin() + cut);
    absl::StatusOr<HsPerfData> perf = ParseHsPerfData(shorter);
    if (perf.ok()) {
      EXPECT_TRUE(perf->strings.empty()) << cut;
    }
  }
  bad = image;
  const int32_t huge = 1 << 30;
  std::memcpy(&bad[32 + 4], &huge, 4);  // name offset past the entry
  EXPECT_FALSE(ParseHsPerfData(bad).ok());
}

TEST(HsPerfData, JavaMajorVersion) {
  EXPECT_EQ(JavaMajorVersion("25.0.3"), 25);
  EXPECT_EQ(JavaMajorVersion("21"), 21);
  EXPECT_EQ(JavaMajorVersion("17.0.15+6-Debian"), 17);
  EXPECT_EQ(JavaMajorVersion("1.8.0_402"), 8);
  EXPECT_EQ(JavaMajorVersion("24-ea"), 24);
  EXPECT_EQ(JavaMajorVersion(""), 0);
  EXPECT_EQ(JavaMajorVersion("x"), 0);
}

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
