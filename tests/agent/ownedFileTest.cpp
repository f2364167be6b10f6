// The files options name (stats=, report=): nobody but the JVM's user redirects the write.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>

#include "ownedFile.h"

namespace vtctx {
namespace {

class Dir {
 public:
  Dir() {
    char dir[] = "/tmp/vtctx-owned-file-XXXXXX";
    path_ = mkdtemp(dir);
  }
  ~Dir() { [[maybe_unused]] int rc = std::system(("rm -rf " + path_).c_str()); }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

bool Opens(const std::string& path, bool create, std::string* error = nullptr) {
  const OwnedFile f = OpenOwnedFileForWriting(path, create);
  if (error) *error = f.error;
  if (f.fd >= 0) close(f.fd);
  return f.fd >= 0;
}

// Opening `path` fails, with an error that says `why`.
::testing::AssertionResult RefusedWith(const std::string& path, bool create,
                                       const std::string& why) {
  std::string error;
  if (Opens(path, create, &error)) return ::testing::AssertionFailure() << path << " was opened";
  if (error.find(why) == std::string::npos) {
    return ::testing::AssertionFailure()
           << "the error '" << error << "' does not say '" << why << "'";
  }
  return ::testing::AssertionSuccess();
}

TEST(OwnedFile, CreatesOnlyWhenAskedAndOpensItsOwnFile) {
  Dir d;
  EXPECT_FALSE(Opens(d / "stats.json", false));
  EXPECT_TRUE(Opens(d / "stats.json", true));
  struct stat st {};
  ASSERT_EQ(stat((d / "stats.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_TRUE(Opens(d / "stats.json", false));
  EXPECT_TRUE(Opens(d / "./stats.json", false));
}

TEST(OwnedFile, RefusesSymlinksAnywhereOnThePath) {
  Dir d;
  std::ofstream(d / "target") << "precious";
  ASSERT_EQ(symlink((d / "target").c_str(), (d / "link").c_str()), 0);
  EXPECT_TRUE(RefusedWith(d / "link", true, "symbolic link"));
  ASSERT_EQ(mkdir((d / "real").c_str(), 0700), 0);
  ASSERT_EQ(symlink((d / "real").c_str(), (d / "dirlink").c_str()), 0);
  EXPECT_TRUE(RefusedWith(d / "dirlink/stats.json", true, "a symbolic link on the way"));
  std::ifstream in(d / "target");
  std::string content;
  in >> content;
  EXPECT_EQ(content, "precious");
}

TEST(OwnedFile, NeverBlocksOnAFifoAndRefusesOtherKinds) {
  Dir d;
  ASSERT_EQ(mkfifo((d / "fifo").c_str(), 0600), 0);
  const auto start = std::chrono::steady_clock::now();
  std::string error;
  EXPECT_TRUE(RefusedWith(d / "fifo", true, "FIFO"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_FALSE(Opens("/dev/null", false, &error));
  EXPECT_FALSE(Opens(d / "", true));
}

TEST(OwnedFile, RefusesAFileOfAnotherUserOrWithTwoLinks) {
  Dir d;
  std::ofstream(d / "mine") << "";
  ASSERT_EQ(link((d / "mine").c_str(), (d / "hardlink").c_str()), 0);
  EXPECT_TRUE(RefusedWith(d / "hardlink", false, "2 links"));
  if (geteuid() != 0) GTEST_SKIP() << "chown needs root";
  std::ofstream(d / "theirs") << "";
  ASSERT_EQ(chown((d / "theirs").c_str(), 65534, 65534), 0);
  EXPECT_TRUE(RefusedWith(d / "theirs", false, "a file of uid 65534"));
}

}  // namespace
}  // namespace vtctx
