// The text of a doc whose path ctest passes in an environment variable, for the tests that check
// a table of the code against the table of its doc (agent.md's counters and options, reader.md's
// flags).
#ifndef VTCTX_TESTS_LIB_DOC_FILE_H_
#define VTCTX_TESTS_LIB_DOC_FILE_H_

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace vtctx::testing {

// The file named by `variable`; "" (and a failed expectation) when it is unset or unreadable.
inline std::string DocNamedBy(const char* variable) {
  const char* path = std::getenv(variable);
  EXPECT_NE(path, nullptr) << "set " << variable << " (ctest does)";
  if (path == nullptr) return "";
  std::ifstream in(path);
  EXPECT_TRUE(in) << path;
  std::stringstream doc;
  doc << in.rdbuf();
  return doc.str();
}

}  // namespace vtctx::testing

#endif  // VTCTX_TESTS_LIB_DOC_FILE_H_
