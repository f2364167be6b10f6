#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "counters.h"
#include "docFile.h"
#include "optionTable.h"

namespace vtctx {
namespace {

// docs/agent.md, whose tables the agent's own tables (counters.h, optionTable.h) must match.
std::string AgentDoc() { return testing::DocNamedBy("VTCTX_AGENT_DOC"); }

// docs/agent.md's stats table has one row per counter of agent/counters.h, with its meaning.
TEST(StatsDoc, EveryCounterIsDocumented) {
  std::stringstream doc;
  doc << AgentDoc();
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

// docs/agent.md's options table is optionTable.h, row by row and in its order: key, values,
// default, meaning.
TEST(OptionsDoc, EveryOptionIsDocumented) {
  const std::string doc = AgentDoc();
  size_t at = doc.find("| key | values | default | meaning |");
  ASSERT_NE(at, std::string::npos) << "docs/agent.md has no options table";
  int options = 0;
#define VTCTX_EXPECT_OPTION_ROW(key, parser, values, default_value, meaning)                      \
  {                                                                                               \
    ++options;                                                                                    \
    const std::string row = std::string("| `") + #key + "` | " + values + " | " + default_value + \
                            " | " + meaning + " |";                                               \
    const size_t found = doc.find(row);                                                           \
    EXPECT_NE(found, std::string::npos) << "docs/agent.md has no row\n" << row;                   \
    EXPECT_TRUE(found == std::string::npos || found > at) << #key << ": out of table order";      \
    if (found != std::string::npos) at = found;                                                   \
  }
  VTCTX_AGENT_OPTIONS(VTCTX_EXPECT_OPTION_ROW)
#undef VTCTX_EXPECT_OPTION_ROW
  EXPECT_GT(options, 0);
  // And no row for an option the agent does not have.
  const size_t end = doc.find("\n\n", doc.find("| key | values | default | meaning |"));
  int rows = 0;
  for (size_t p = doc.find("\n| `", doc.find("| key | values | default | meaning |"));
       p != std::string::npos && p < end; p = doc.find("\n| `", p + 1)) {
    ++rows;
  }
  EXPECT_EQ(rows, options) << "docs/agent.md's options table has rows the agent does not know";
}

}  // namespace
}  // namespace vtctx
