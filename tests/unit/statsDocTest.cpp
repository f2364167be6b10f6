#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "counters.h"

namespace vtctx {
namespace {

// docs/agent.md's stats table has one row per counter of agent/counters.h, with its meaning.
TEST(StatsDoc, EveryCounterIsDocumented) {
  const char* path = std::getenv("VTCTX_AGENT_DOC");
  ASSERT_NE(path, nullptr) << "set VTCTX_AGENT_DOC (ctest does)";
  std::ifstream in(path);
  ASSERT_TRUE(in) << path;
  std::stringstream doc;
  doc << in.rdbuf();
  int counters = 0;
#define VTCTX_EXPECT_ROW(name, meaning)                                           \
  ++counters;                                                                     \
  EXPECT_NE(doc.str().find(std::string("| `") + #name + "` | " + meaning + " |"), \
            std::string::npos)                                                    \
      << "docs/agent.md has no row \"| `" #name "` | " meaning " |\"";
  VTCTX_EVENT_COUNTERS(VTCTX_EXPECT_ROW)
#undef VTCTX_EXPECT_ROW
  EXPECT_GT(counters, 0);
}

}  // namespace
}  // namespace vtctx
