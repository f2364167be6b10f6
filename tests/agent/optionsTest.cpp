#include <gtest/gtest.h>

#include <initializer_list>
#include <string>

#include "options.h"

namespace vtctx {
namespace {

// Each option string is refused, with an error that contains its expectation.
struct BadOptions {
  std::string text;
  const char* expect;
};
void ExpectRefused(std::initializer_list<BadOptions> cases) {
  for (const BadOptions& c : cases) {
    OptionsParseResult r = ParseOptions(c.text.c_str());
    EXPECT_FALSE(r.ok()) << c.text;
    EXPECT_NE(r.error.find(c.expect), std::string::npos) << c.text << " -> " << r.error;
  }
}

TEST(Options, DefaultsForNullAndEmpty) {
  for (const char* text : {static_cast<const char*>(nullptr), "", ",", ",,"}) {
    OptionsParseResult r = ParseOptions(text);
    EXPECT_TRUE(r.ok()) << r.error;
    EXPECT_EQ(r.options.log, LogLevel::kInfo);
    EXPECT_TRUE(r.options.stats_path.empty());
    EXPECT_EQ(r.options.on_error, OnError::kContinue);
    EXPECT_EQ(r.options.bind, BindAt::kFirstMount);
    EXPECT_EQ(r.options.record_size, 64u);
    EXPECT_EQ(r.options.fault, Fault::kNone);
    EXPECT_TRUE(r.options.service_name.empty());
    EXPECT_TRUE(r.options.attribute_keys.empty());
  }
}

TEST(Options, EveryKey) {
  OptionsParseResult r = ParseOptions(
      "log=debug,stats=/tmp/a=b.json,onerror=abort,bind=start,record_size=640,fault=stale-carrier");
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.options.log, LogLevel::kDebug);
  EXPECT_EQ(r.options.stats_path, "/tmp/a=b.json");  // only the first '=' splits
  EXPECT_EQ(r.options.on_error, OnError::kAbort);
  EXPECT_EQ(r.options.bind, BindAt::kStart);
  EXPECT_EQ(r.options.record_size, 640u);
  EXPECT_EQ(r.options.fault, Fault::kStaleCarrier);
  EXPECT_EQ(ParseOptions("log=off").options.log, LogLevel::kOff);
  EXPECT_EQ(ParseOptions("log=error").options.log, LogLevel::kError);
  EXPECT_EQ(ParseOptions("bind=mount").options.bind, BindAt::kFirstMount);
  EXPECT_EQ(ParseOptions("bind=use").options.bind, BindAt::kFirstUse);
  EXPECT_EQ(ParseOptions("fault=none").options.fault, Fault::kNone);
}

// The names the agent reports (load line, stats, report) are the option's own spellings.
TEST(Options, NamesAreTheSpellingsParsed) {
  const struct {
    const char* text;
    const char* bind;
    const char* channel;
    const char* fault;
  } cases[] = {
      {"bind=mount,channel=carrier,fault=none", "mount", "carrier", "none"},
      {"bind=start,channel=identity,fault=stale-carrier", "start", "identity", "stale-carrier"},
      {"bind=use,fault=identity-index", "use", "carrier", "identity-index"},
  };
  for (const auto& c : cases) {
    const OptionsParseResult r = ParseOptions(c.text);
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_STREQ(BindName(r.options.bind), c.bind) << c.text;
    EXPECT_STREQ(ChannelName(r.options.channel), c.channel) << c.text;
    EXPECT_STREQ(FaultName(r.options.fault), c.fault) << c.text;
  }
}

TEST(Options, UnknownKeyNamesItAndListsValidKeys) {
  OptionsParseResult r = ParseOptions("log=info,colour=blue");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error.find("unknown option 'colour'"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find(ValidOptionKeys()), std::string::npos) << r.error;
  EXPECT_EQ(r.options.log, LogLevel::kInfo);
}

TEST(Options, MalformedItems) {
  for (const char* text : {"log", "=info", "stats", "log=info,onerror"}) {
    OptionsParseResult r = ParseOptions(text);
    EXPECT_FALSE(r.ok()) << text;
    EXPECT_NE(r.error.find("malformed option"), std::string::npos) << r.error;
  }
}

TEST(Options, KeyGivenTwiceIsRefusedNotLastWins) {
  for (const char* text :
       {"log=info,log=off", "bind=use,record_size=128,bind=start", "stats=/tmp/a,stats=/tmp/a"}) {
    OptionsParseResult r = ParseOptions(text);
    EXPECT_FALSE(r.ok()) << text;
    EXPECT_NE(r.error.find("given twice"), std::string::npos) << r.error;
  }
  OptionsParseResult r = ParseOptions("log=error,bind=use,log=off");
  EXPECT_NE(r.error.find("option log given twice"), std::string::npos) << r.error;
  EXPECT_EQ(r.options.log, LogLevel::kError);  // the first stands
}

TEST(Options, BadValues) {
  ExpectRefused({
      {"log=verbose", "option log: bad value 'verbose'"},
      {"log=", "option log: bad value ''"},
      {"stats=", "option stats: bad value ''"},
      {"onerror=ignore", "option onerror: bad value 'ignore'"},
      {"bind=later", "option bind: bad value 'later'"},
      {"record_size=63", "option record_size: bad value '63'"},
      {"record_size=704", "option record_size: bad value '704'"},
      {"record_size=64k", "option record_size: bad value '64k'"},
      {"record_size=-64", "option record_size: bad value '-64'"},
      {"record_size=99999999999999999999999", "option record_size: bad value"},
      {"fault=stale", "option fault: bad value 'stale'"},
  });
}

TEST(Options, ReaderResync) {
  // Off unless asked for: its CPU bursts cost a service under a CPU quota.
  EXPECT_FALSE(ParseOptions("").options.reader_resync);
  EXPECT_TRUE(ParseOptions("reader_resync=on").options.reader_resync);
  EXPECT_FALSE(ParseOptions("reader_resync=off").options.reader_resync);
  OptionsParseResult bad = ParseOptions("reader_resync=yes");
  EXPECT_NE(bad.error.find("option reader_resync: bad value 'yes' (expected on|off)"),
            std::string::npos)
      << bad.error;
  EXPECT_NE(std::string(ValidOptionKeys()).find("reader_resync"), std::string::npos);
}

TEST(Options, Report) {
  EXPECT_TRUE(ParseOptions("").options.report_path.empty());
  EXPECT_EQ(ParseOptions("report=/tmp/.vtctx-load-x").options.report_path, "/tmp/.vtctx-load-x");
  OptionsParseResult bad = ParseOptions("report=");
  EXPECT_NE(bad.error.find("option report: bad value '' (expected a file path)"), std::string::npos)
      << bad.error;
  // A bad option next to report= still leaves the path, so the failure can be reported there.
  OptionsParseResult both = ParseOptions("bogus=1,report=/tmp/r");
  EXPECT_FALSE(both.ok());
  EXPECT_EQ(both.options.report_path, "/tmp/r");
  EXPECT_NE(std::string(ValidOptionKeys()).find("report"), std::string::npos);
}

TEST(Options, ProcessContextKeys) {
  OptionsParseResult r =
      ParseOptions("service_name=checkout-service,attribute_keys=http.route|user.id|http.route");
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.options.service_name, "checkout-service");
  // '|' separates keys (',' separates options); duplicates collapse, order is kept.
  EXPECT_EQ(r.options.attribute_keys, (std::vector<std::string>{"http.route", "user.id"}));
  EXPECT_EQ(ParseOptions("attribute_keys=only").options.attribute_keys,
            (std::vector<std::string>{"only"}));
  EXPECT_EQ(ParseOptions("service_name=a=b").options.service_name, "a=b");
  EXPECT_NE(std::string(ValidOptionKeys()).find("service_name, attribute_keys"), std::string::npos);

  std::string many;
  for (int i = 0; i < 255; ++i) many += (i ? "|k" : "k") + std::to_string(i);
  EXPECT_EQ(ParseOptions(("attribute_keys=" + many).c_str()).options.attribute_keys.size(), 255u);
  OptionsParseResult over = ParseOptions(("attribute_keys=" + many + "|k255").c_str());
  EXPECT_NE(over.error.find("option attribute_keys: 256 keys (at most 255)"), std::string::npos)
      << over.error;

  ExpectRefused({
      {"service_name=", "option service_name: bad value ''"},
      {"attribute_keys=", "option attribute_keys: key '': empty attribute key"},
      {"attribute_keys=a||b", "option attribute_keys: key '': empty attribute key"},
      {"attribute_keys=a|", "option attribute_keys: key '': empty attribute key"},
      {"attribute_keys=" + std::string(256, 'k'), "longer than 255 bytes"},
      {"attribute_keys=ok|bad\xff", "not valid UTF-8"},
  });
}

// onerror=abort must take effect even when another item is bad, wherever it appears.
TEST(Options, OnErrorHonouredNextToBadItems) {
  EXPECT_EQ(ParseOptions("bogus=1,onerror=abort").options.on_error, OnError::kAbort);
  EXPECT_EQ(ParseOptions("onerror=abort,log=loud").options.on_error, OnError::kAbort);
  OptionsParseResult r = ParseOptions("a=1,b=2");
  EXPECT_NE(r.error.find("'a'"), std::string::npos);  // the first problem is the one reported
}

TEST(Options, ShimLoaders) {
  EXPECT_EQ(ParseOptions("").options.shim_loaders, ShimLoaders::kOperator);
  EXPECT_EQ(ParseOptions("shim_loaders=operator").options.shim_loaders, ShimLoaders::kOperator);
  EXPECT_EQ(ParseOptions("shim_loaders=any").options.shim_loaders, ShimLoaders::kAny);
  EXPECT_EQ(ParseOptions("shim_loaders=system").options.shim_loaders, ShimLoaders::kSystem);
  OptionsParseResult bad = ParseOptions("shim_loaders=all");
  EXPECT_NE(bad.error.find("option shim_loaders: bad value 'all' (expected operator|system|any)"),
            std::string::npos)
      << bad.error;
}

}  // namespace
}  // namespace vtctx
