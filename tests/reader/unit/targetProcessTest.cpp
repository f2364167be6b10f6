// TargetProcess: a process held by pidfd and /proc directory, with and without pidfd_open.
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <string>
#include <thread>

#include "target/procMaps.h"
#include "target/processMemory.h"
#include "target/targetProcess.h"

namespace vtctx::reader {
namespace {

volatile uint64_t g_marker = 0x5eed5eed5eed5eedull;  // same address in a forked child

// A child that waits until killed.
pid_t StartChild() {
  const pid_t pid = fork();
  if (pid == 0) {
    for (;;) pause();
  }
  return pid;
}

// Waits (up to 10 s) until `target` says it has exited.
bool WaitExited(const TargetProcess& target) {
  for (int i = 0; i < 1000; ++i) {
    if (target.exit_fd() >= 0) {
      pollfd p{target.exit_fd(), POLLIN, 0};
      if (poll(&p, 1, 10) == 1) return target.Exited();
    } else if (target.Exited()) {
      return true;
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  return false;
}

class TargetProcessTest : public testing::TestWithParam<bool> {};

TEST_P(TargetProcessTest, HeldUntilExitThenNothingIsRead) {
  const bool use_pidfd = GetParam();
  const pid_t child = StartChild();
  ASSERT_GT(child, 0);
  absl::StatusOr<TargetProcess> target = TargetProcess::Hold(child, use_pidfd);
  ASSERT_TRUE(target.ok()) << target.status();
  EXPECT_EQ(target->pid(), child);
  EXPECT_EQ(target->exit_fd() >= 0, use_pidfd);
  EXPECT_FALSE(target->Exited());
  EXPECT_TRUE(ReadMapsIn(target->dir()).ok());
  absl::StatusOr<std::unique_ptr<ProcessMemory>> memory = ProcessMemory::OpenIn(target->dir());
  ASSERT_TRUE(memory.ok()) << memory.status();
  EXPECT_EQ(*(*memory)->ReadU64(reinterpret_cast<uintptr_t>(&g_marker)), g_marker);

  ASSERT_EQ(kill(child, SIGKILL), 0);
  EXPECT_TRUE(WaitExited(*target));  // a zombie has exited
  ASSERT_EQ(waitpid(child, nullptr, 0), child);
  EXPECT_TRUE(target->Exited());
  EXPECT_FALSE(ReadMapsIn(target->dir()).ok());
  EXPECT_FALSE((*memory)->ReadU64(reinterpret_cast<uintptr_t>(&g_marker)).ok());
}

TEST_P(TargetProcessTest, MissingOrExitedProcessIsNotFound) {
  std::ifstream in("/proc/sys/kernel/pid_max");
  pid_t pid_max = 0;
  in >> pid_max;
  ASSERT_GT(pid_max, 0);
  EXPECT_TRUE(absl::IsNotFound(TargetProcess::Hold(pid_max, GetParam()).status()));

  const pid_t child = StartChild();
  ASSERT_GT(child, 0);
  ASSERT_EQ(kill(child, SIGKILL), 0);
  siginfo_t info{};
  ASSERT_EQ(waitid(P_PID, static_cast<id_t>(child), &info, WEXITED | WNOWAIT), 0);  // a zombie
  EXPECT_TRUE(absl::IsNotFound(TargetProcess::Hold(child, GetParam()).status()));
  ASSERT_EQ(waitpid(child, nullptr, 0), child);
}

INSTANTIATE_TEST_SUITE_P(PidfdOrProcDir, TargetProcessTest, testing::Bool());

TEST(TargetProcess, AThreadIsNotAProcess) {
  std::atomic<pid_t> tid{0};
  std::atomic<bool> stop{false};
  std::thread thread([&] {
    tid = static_cast<pid_t>(syscall(SYS_gettid));
    while (!stop) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  });
  while (tid == 0) std::this_thread::yield();
  EXPECT_TRUE(absl::IsInvalidArgument(TargetProcess::Hold(tid).status()));
  stop = true;
  thread.join();
}

}  // namespace
}  // namespace vtctx::reader
