// The CLI's pure helpers: flag parsing, syscall names, perf-map symbolisation.
#include <gtest/gtest.h>

#include <vector>

#include "commands/cliArgs.h"
#include "commands/syscallTable.h"
#include "output/symbolizer.h"

namespace vtctx::reader {
namespace {

constexpr FlagSpec kSpecs[] = {
    {"pid", true}, {"format", true}, {"verbose", false}, {"wait", true, true}};
constexpr absl::string_view kFormats[] = {"text", "json"};

absl::StatusOr<ParsedArgs> Parse(std::vector<const char*> words) {
  std::vector<char*> argv;
  for (const char* w : words) argv.push_back(const_cast<char*>(w));
  return ParseArgs(argv, kSpecs);
}

TEST(CliArgs, SpaceAndEqualsForms) {
  auto a = Parse({"--pid", "42", "--format=json", "--verbose"});
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(*a->Pid(), 42);
  EXPECT_EQ(*a->Choice("format", kFormats), "json");
  EXPECT_TRUE(a->Has("verbose"));
}

TEST(CliArgs, Defaults) {
  auto a = Parse({"--pid", "1"});
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(*a->Choice("format", kFormats), "text");
  EXPECT_EQ(*a->Seconds("duration"), 0.0);
  EXPECT_EQ(*a->Integer("hz", 99, 1, 1000), 99);
}

TEST(CliArgs, Errors) {
  EXPECT_TRUE(absl::IsInvalidArgument(Parse({"--bogus"}).status()));
  EXPECT_TRUE(absl::IsInvalidArgument(Parse({"--pid"}).status()));
  EXPECT_TRUE(absl::IsInvalidArgument(Parse({"stray"}).status()));
  EXPECT_TRUE(absl::IsInvalidArgument(Parse({"--verbose=1"}).status()));
  auto a = Parse({"--pid", "x", "--format", "xml"});
  ASSERT_TRUE(a.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(a->Pid().status()));
  EXPECT_TRUE(absl::IsInvalidArgument(a->Choice("format", kFormats).status()));
  auto b = Parse({});
  ASSERT_TRUE(b.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(b->Pid().status()));
  EXPECT_TRUE(Parse({"--help"})->Has("help"));
}

TEST(CliArgs, OptionalValueOnlyWithEquals) {
  EXPECT_FALSE(Parse({})->OptionalSeconds("wait")->has_value());
  EXPECT_EQ(*Parse({"--wait"})->OptionalSeconds("wait"), 0.0);  // no limit
  EXPECT_EQ(*Parse({"--wait=2.5", "--pid", "1"})->OptionalSeconds("wait"), 2.5);
  EXPECT_TRUE(absl::IsInvalidArgument(Parse({"--wait", "5"}).status()));  // 5: a stray word
  EXPECT_TRUE(absl::IsInvalidArgument(Parse({"--wait=-1"})->OptionalSeconds("wait").status()));
  EXPECT_TRUE(absl::IsInvalidArgument(Parse({"--wait=x"})->OptionalSeconds("wait").status()));
}

TEST(SyscallTable, KnowsTheHostNumbers) {
#if defined(__x86_64__)
  EXPECT_EQ(SyscallNumber("write"), 1);
  EXPECT_EQ(SyscallNumber("read"), 0);
  EXPECT_EQ(SyscallName(1), "write");
#endif
  EXPECT_FALSE(SyscallNumber("no_such_syscall").has_value());
  EXPECT_EQ(SyscallName(-1), "");
}

TEST(Symbolizer, PerfMap) {
  SymbolTable t = ParsePerfMap(
      "7f0000001000 40 Interpreter\n"
      "7f0000002000 0x100 LFoo;::bar (I)V\n"
      "broken line\n");
  ASSERT_TRUE(t.Find(0x7f0000001010).has_value());
  EXPECT_EQ(t.Find(0x7f0000001010)->name, "Interpreter");
  EXPECT_FALSE(t.Find(0x7f0000001040).has_value());  // past the 0x40-byte range
  ASSERT_TRUE(t.Find(0x7f00000020ff).has_value());
  EXPECT_EQ(t.Find(0x7f00000020ff)->name, "LFoo;::bar (I)V");
  EXPECT_FALSE(t.Find(0x7f0000000fff).has_value());
}

}  // namespace
}  // namespace vtctx::reader
