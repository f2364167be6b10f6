// The commands' options as plain structs: defaults, every flag, and the usage errors.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "commands/commandOptions.h"
#include "commands/syscallTable.h"
#include "commands/syscalls.h"

namespace vtctx::reader {
namespace {

// argv words for a Parse*Options call.
class Words {
 public:
  Words(std::initializer_list<const char*> words) : storage_(words.begin(), words.end()) {
    for (std::string& w : storage_) argv_.push_back(w.data());
  }
  Words(const Words&) = delete;  // argv_ points into storage_
  Words& operator=(const Words&) = delete;
  std::span<char* const> args() const { return argv_; }

 private:
  std::vector<std::string> storage_;
  std::vector<char*> argv_;
};

template <typename Options>
std::string ErrorOf(absl::StatusOr<Options> (*parse)(std::span<char* const>), const Words& w) {
  absl::StatusOr<Options> options = parse(w.args());
  EXPECT_FALSE(options.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(options.status())) << options.status();
  return std::string(options.status().message());
}

TEST(CommandOptions, HelpNeedsNothingElse) {
  for (const char* help : {"--help", "-h"}) {
    EXPECT_TRUE(ParseResolveOptions(Words{help}.args())->help);
    EXPECT_TRUE(ParseSyscallsOptions(Words{help}.args())->help);
    EXPECT_TRUE(ParseProfileOptions(Words{help}.args())->help);
  }
}

TEST(CommandOptions, ResolveDefaultsAndFlags) {
  absl::StatusOr<ResolveOptions> r = ParseResolveOptions(Words{"--pid", "42"}.args());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->help);
  EXPECT_EQ(r->pid, 42);
  EXPECT_FALSE(r->json);
  EXPECT_FALSE(r->wait_s.has_value());
  r = ParseResolveOptions(Words{"--pid=7", "--format", "json", "--wait=3"}.args());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->pid, 7);
  EXPECT_TRUE(r->json);
  EXPECT_EQ(r->wait_s, 3.0);
}

TEST(CommandOptions, SyscallsDefaultsAndFlags) {
  absl::StatusOr<SyscallsOptions> s =
      ParseSyscallsOptions(Words{"--pid", "9", "--syscall", "write"}.args());
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->run.pid, 9);
  EXPECT_EQ(s->run.duration_s, 0.0);
  EXPECT_FALSE(s->run.wait_s.has_value());
  EXPECT_EQ(s->run.ringbuf_mb, 16u);
  EXPECT_FALSE(s->run.bpf_stats || s->run.bpf_floor || s->run.verbose || s->raw_tp || s->json);
  EXPECT_EQ(s->syscalls, std::vector<int>{*SyscallNumber("write")});

  s = ParseSyscallsOptions(Words{"--pid", "9", "--syscall", "write,0,pwrite64", "--format=json",
                                 "--duration", "1.5", "--wait", "--ringbuf-mb", "64", "--bpf-stats",
                                 "--bpf-floor", "--raw-tp", "--verbose"}
                               .args());
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->syscalls,
            (std::vector<int>{*SyscallNumber("write"), 0, *SyscallNumber("pwrite64")}));
  EXPECT_TRUE(s->json);
  EXPECT_EQ(s->run.duration_s, 1.5);
  EXPECT_EQ(s->run.wait_s, 0.0);  // no limit
  EXPECT_EQ(s->run.ringbuf_mb, 64u);
  EXPECT_TRUE(s->run.bpf_stats && s->run.bpf_floor && s->raw_tp && s->run.verbose);

  s = ParseSyscallsOptions(Words{"--pid", "9", "--syscall", "all"}.args());
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->syscalls.size(), static_cast<size_t>(VTCTX_SYSCALL_MAX));
}

TEST(CommandOptions, ProfileDefaultsAndFlags) {
  absl::StatusOr<ProfileOptions> p = ParseProfileOptions(Words{"--pid", "5"}.args());
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->run.pid, 5);
  EXPECT_EQ(p->run.ringbuf_mb, 4u);
  EXPECT_EQ(p->hz, 99);
  EXPECT_EQ(p->format, ProfileFormat::kTable);
  EXPECT_TRUE(p->group_by.empty() && p->folded_attrs.empty());

  p = ParseProfileOptions(Words{"--pid", "5", "--hz", "999", "--group-by", "http.route,#3"}.args());
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->hz, 999);
  EXPECT_EQ(p->group_by, (std::vector<std::string>{"http.route", "#3"}));
  p = ParseProfileOptions(Words{"--pid", "5", "--group-by", "trace"}.args());
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(p->group_by.empty());  // the default ranking
  p = ParseProfileOptions(
      Words{"--pid", "5", "--format", "folded", "--folded-attrs", "a,b", "--wait=2.5"}.args());
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->format, ProfileFormat::kFolded);
  EXPECT_EQ(p->folded_attrs, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(p->run.wait_s, 2.5);
  EXPECT_EQ(ParseProfileOptions(Words{"--pid", "5", "--format", "json"}.args())->format,
            ProfileFormat::kJson);
}

TEST(CommandOptions, UsageErrorsNameTheFlag) {
  struct Case {
    std::string (*error)(const Words&);
    Words words;
    const char* expect;
  };
  const auto resolve = [](const Words& w) { return ErrorOf(ParseResolveOptions, w); };
  const auto syscalls = [](const Words& w) { return ErrorOf(ParseSyscallsOptions, w); };
  const auto profile = [](const Words& w) { return ErrorOf(ParseProfileOptions, w); };
  const Case cases[] = {
      {resolve, {}, "--pid is required"},
      {resolve, {"--pid", "1", "--bogus"}, "unknown option --bogus (see vtctx-reader resolve"},
      {resolve, {"--pid", "1", "--format", "xml"}, "--format wants one of text|json"},
      {resolve, {"--pid", "1", "--wait", "5"}, "unexpected argument '5'"},
      {syscalls, {"--pid", "1"}, "--syscall is required"},
      {syscalls, {"--pid", "1", "--syscall", "nosuch"}, "unknown syscall 'nosuch'"},
      {syscalls, {"--pid", "1", "--syscall", "1024"}, "syscall number 1024 out of range"},
      {syscalls, {"--pid", "1", "--syscall", "write", "--hz", "9"}, "unknown option --hz"},
      {syscalls, {"--pid", "1", "--syscall", "write", "--ringbuf-mb", "3"}, "power of two"},
      {syscalls, {"--pid", "1", "--syscall", "write", "--duration", "0"}, "--duration wants"},
      {syscalls, {"--pid", "1", "--syscall", "write", "--wait=-1"}, "--wait wants"},
      {profile, {"--pid", "x"}, "--pid wants a process id"},
      {profile, {"--pid", "1", "--hz", "0"}, "--hz wants an integer in [1, 100000]"},
      {profile, {"--pid", "1", "--raw-tp"}, "unknown option --raw-tp"},
      {profile, {"--pid", "1", "--group-by", "a", "--format", "json"}, "applies to --format table"},
      {profile, {"--pid", "1", "--folded-attrs", "a"}, "applies to --format folded"},
      {profile, {"--pid", "1", "--group-by", "a,,b"}, "comma-separated names"},
      {profile, {"--pid", "1", "--group-by", "trace,a"}, "not both"},
  };
  for (const Case& c : cases) {
    const std::string error = c.error(c.words);
    EXPECT_NE(error.find(c.expect), std::string::npos) << error << " lacks " << c.expect;
  }
}

TEST(CommandOptions, Attach) {
  absl::StatusOr<AttachOptions> a = ParseAttachOptions(Words{"--pid", "5"}.args());
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->pid, 5);
  EXPECT_EQ(a->load.agent_path, "");
  EXPECT_EQ(a->load.agent_options, "");
  EXPECT_EQ(a->load.timeout_s, 10.0);
  a = ParseAttachOptions(Words{"--pid=5", "--agent", "/x/libvtctx.so", "--options",
                               "log=off,bind=use", "--timeout", "2.5"}
                             .args());
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->load.agent_path, "/x/libvtctx.so");
  EXPECT_EQ(a->load.agent_options, "log=off,bind=use");
  EXPECT_EQ(a->load.timeout_s, 2.5);
  EXPECT_NE(ErrorOf(ParseAttachOptions, Words{"--agent", "/x"}).find("--pid"), std::string::npos);

  absl::StatusOr<ProfileOptions> p =
      ParseProfileOptions(Words{"--attach", "--pid", "5", "--agent-options", "log=off"}.args());
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_TRUE(p->run.attach.has_value());
  EXPECT_EQ(p->run.attach->agent_options, "log=off");
  EXPECT_TRUE(p->run.attach->choose_channel);  // no --channel, no channel= option
  EXPECT_FALSE(ParseProfileOptions(Words{"--pid", "5"}.args())->run.attach.has_value());
  // The channel is chosen at the attach only when nothing names one; `verify` compares both.
  for (const Words& named :
       {Words{"--attach", "--pid", "5", "--channel", "carrier"},
        Words{"--attach", "--pid", "5", "--channel", "identity"},
        Words{"--attach", "--pid", "5", "--agent-options", "channel=carrier"}}) {
    absl::StatusOr<ProfileOptions> chosen = ParseProfileOptions(named.args());
    ASSERT_TRUE(chosen.ok() && chosen->run.attach.has_value()) << chosen.status();
    EXPECT_FALSE(chosen->run.attach->choose_channel);
  }
  absl::StatusOr<VerifyOptions> v = ParseVerifyOptions(Words{"--attach", "--pid", "5"}.args());
  ASSERT_TRUE(v.ok() && v->run.attach.has_value()) << v.status();
  EXPECT_FALSE(v->run.attach->choose_channel);
  absl::StatusOr<ResolveOptions> r = ParseResolveOptions(Words{"--pid", "5", "--attach"}.args());
  ASSERT_TRUE(r.ok() && r->attach.has_value());
  EXPECT_NE(ErrorOf(ParseSyscallsOptions,
                    Words{"--pid", "5", "--syscall", "write", "--agent", "/x/libvtctx.so"})
                .find("--agent and --agent-options go with --attach"),
            std::string::npos);
}

TEST(CommandOptions, ProfileFilesTracesAndShortFlags) {
  absl::StatusOr<ProfileOptions> p =
      ParseProfileOptions(Words{"--pid", "5", "-d", "30", "--format", "pprof", "-o", "p.pb.gz",
                                "--trace", "0af7651916cd43dd8448eb211c80319c"}
                              .args());
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->run.duration_s, 30.0);
  EXPECT_EQ(p->format, ProfileFormat::kPprof);
  EXPECT_EQ(p->output, "p.pb.gz");
  EXPECT_EQ(p->traces, std::vector<std::string>{"0af7651916cd43dd8448eb211c80319c"});
  p = ParseProfileOptions(Words{"--pid", "5", "--format", "svg", "--folded-attrs", "a"}.args());
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->output, "");  // stdout
  EXPECT_NE(ErrorOf(ParseProfileOptions, Words{"--pid", "5", "--format", "pprof"})
                .find("--format pprof needs --output"),
            std::string::npos);
  EXPECT_NE(ErrorOf(ParseProfileOptions, Words{"--pid", "5", "--output", "x"})
                .find("--output applies to --format pprof and svg"),
            std::string::npos);
  EXPECT_NE(
      ErrorOf(ParseProfileOptions, Words{"--pid", "5", "--format", "folded", "--trace", "0AF7"})
          .find("32 lowercase hex digits"),
      std::string::npos);
  EXPECT_NE(ErrorOf(ParseProfileOptions,
                    Words{"--pid", "5", "--trace", "0af7651916cd43dd8448eb211c80319c"})
                .find("--trace applies to"),
            std::string::npos);
  EXPECT_NE(ErrorOf(ParseProfileOptions, Words{"--pid", "5", "-x"}).find("unexpected argument"),
            std::string::npos);
}

}  // namespace
}  // namespace vtctx::reader
