// Acting on a target's files (targetView.h, boundedFile.h) and printing what it says
// (untrustedText.h). The TargetView tests need root (setns, chroot, setuid) and skip without.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "target/boundedFile.h"
#include "target/monotonicClock.h"
#include "target/targetProcess.h"
#include "target/targetView.h"
#include "target/untrustedText.h"

namespace vtctx::reader {
namespace {

constexpr uid_t kNobody = 65534;

TEST(UntrustedText, EscapesControlsAndInvalidUtf8) {
  EXPECT_EQ(Printable("plain text, ünïcode"), "plain text, ünïcode");
  EXPECT_EQ(Printable("\x1b[31mred\r\n"), "\\x1b[31mred\\x0d\\x0a");
  EXPECT_EQ(Printable("C1 \xc2\x9b"
                      "2J"),
            "C1 \\xc2\\x9b2J");  // CSI as U+009B
  EXPECT_EQ(Printable("bad \xff\xfe utf8"), "bad \\xff\\xfe utf8");
  EXPECT_EQ(Printable("back\\slash"), "back\\x5cslash");  // no forged escapes
  EXPECT_EQ(Printable(std::string(600, 'a'), 8), "aaaaaaaa...");
}

class TempDir {
 public:
  TempDir() {
    char dir[] = "/tmp/vtctx-view-test-XXXXXX";
    path_ = mkdtemp(dir);
  }
  ~TempDir() { [[maybe_unused]] int rc = system(("rm -rf " + path_).c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

TEST(BoundedFile, RefusesSymlinksFifosDevicesAndOversizedFiles) {
  TempDir dir;
  const std::string file = dir.path() + "/file";
  const int fd = open(file.c_str(), O_WRONLY | O_CREAT, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, "0123456789", 10), 10);
  close(fd);
  absl::StatusOr<std::string> text = ReadRegularFile(AT_FDCWD, file, 10);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text, "0123456789");
  EXPECT_TRUE(absl::IsResourceExhausted(ReadRegularFile(AT_FDCWD, file, 9).status()));
  ASSERT_EQ(symlink(file.c_str(), (dir.path() + "/link").c_str()), 0);
  EXPECT_TRUE(
      absl::IsFailedPrecondition(ReadRegularFile(AT_FDCWD, dir.path() + "/link", 100).status()));
  // A FIFO nobody writes to: refused at once, never waited on.
  ASSERT_EQ(mkfifo((dir.path() + "/fifo").c_str(), 0600), 0);
  const double start = MonotonicSeconds();
  EXPECT_TRUE(
      absl::IsFailedPrecondition(ReadRegularFile(AT_FDCWD, dir.path() + "/fifo", 100).status()));
  EXPECT_TRUE(absl::IsFailedPrecondition(
      OpenRegularFile(AT_FDCWD, dir.path() + "/fifo", O_WRONLY).status()));
  EXPECT_LT(MonotonicSeconds() - start, 5.0);
  EXPECT_TRUE(absl::IsFailedPrecondition(ReadRegularFile(AT_FDCWD, "/dev/zero", 100).status()));
  EXPECT_TRUE(absl::IsFailedPrecondition(ReadRegularFile(AT_FDCWD, dir.path(), 100).status()));
}

// A child process that runs as nobody until killed: a target of another user.
class NobodyProcess {
 public:
  NobodyProcess() {
    pid_ = fork();
    if (pid_ == 0) {
      if (setgid(kNobody) != 0 || setuid(kNobody) != 0) _exit(1);
      for (;;) pause();
    }
  }
  ~NobodyProcess() {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_;
};

TEST(TargetView, WorkRunsWithTheTargetsCredentialsAndWithoutCapabilities) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root";
  NobodyProcess nobody;
  // Wait until the child has dropped to nobody (its /proc directory's owner says so).
  const double deadline = MonotonicSeconds() + 10;
  struct stat st {};
  while (
      (stat(("/proc/" + std::to_string(nobody.pid())).c_str(), &st) != 0 || st.st_uid != kNobody) &&
      MonotonicSeconds() < deadline) {
    usleep(1000);
  }
  ASSERT_EQ(st.st_uid, kNobody);
  absl::StatusOr<TargetProcess> target = TargetProcess::Hold(nobody.pid());
  ASSERT_TRUE(target.ok()) << target.status();
  absl::StatusOr<TargetView> view = TargetView::Open(*target, kNobody, kNobody);
  ASSERT_TRUE(view.ok()) << view.status();
  absl::StatusOr<std::string> ids = view->Run("ids", 10, 100, [](ViewSession&) {
    // Root could open /etc/shadow; the target's user cannot, and neither can the view.
    const bool shadow = open("/etc/shadow", O_RDONLY | O_CLOEXEC) >= 0;
    return absl::StatusOr<std::string>(std::to_string(getuid()) + " " + std::to_string(geteuid()) +
                                       " " + std::to_string(getegid()) + (shadow ? " shadow" : ""));
  });
  ASSERT_TRUE(ids.ok()) << ids.status();
  EXPECT_EQ(*ids, "65534 65534 65534");
  // Errors of the work come back with their code and message.
  absl::StatusOr<std::string> failed = view->Run("fails", 10, 100, [](ViewSession&) {
    return absl::StatusOr<std::string>(absl::NotFoundError("nothing there"));
  });
  EXPECT_TRUE(absl::IsNotFound(failed.status()));
  EXPECT_EQ(failed.status().message(), "nothing there");
}

TEST(TargetView, AChildThatDoesNotAnswerIsStoppedAndItsFilesRemoved) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root";
  absl::StatusOr<TargetProcess> self = TargetProcess::Hold(getpid());
  ASSERT_TRUE(self.ok());
  absl::StatusOr<TargetView> view = TargetView::Open(*self, 0, 0);
  ASSERT_TRUE(view.ok()) << view.status();
  TempDir dir;
  const std::string file = dir.path() + "/left-behind";
  const double start = MonotonicSeconds();
  absl::StatusOr<std::string> hung = view->Run("hangs", 0.5, 100, [&](ViewSession& session) {
    close(open(file.c_str(), O_WRONLY | O_CREAT, 0600));
    session.RemoveUnlessKept(file);
    for (;;) pause();
    return absl::StatusOr<std::string>("never");
  });
  EXPECT_TRUE(absl::IsDeadlineExceeded(hung.status())) << hung.status();
  EXPECT_LT(MonotonicSeconds() - start, 5.0);
  EXPECT_NE(access(file.c_str(), F_OK), 0) << "the stopped child left " << file;
  // An answer over the bound is refused.
  absl::StatusOr<std::string> big = view->Run("big", 10, 10, [](ViewSession&) {
    return absl::StatusOr<std::string>(std::string(1 << 20, 'x'));
  });
  EXPECT_TRUE(absl::IsResourceExhausted(big.status())) << big.status();
}

}  // namespace
}  // namespace vtctx::reader
