#include "commands/commandDeadline.h"

#include <signal.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "absl/strings/str_format.h"

namespace vtctx::reader {
namespace {

char g_line[512];
size_t g_line_size = 0;
char g_command[32];

void OnDeadline(int) {
  // Async-signal-safe: the line was written when the deadline was armed.
  ssize_t ignored = write(STDERR_FILENO, g_line, g_line_size);
  (void)ignored;
  _exit(1);
}

}  // namespace

void NameCommandForDeadline(absl::string_view command) {
  const size_t n = std::min(command.size(), sizeof g_command - 1);
  std::memcpy(g_command, command.data(), n);
  g_command[n] = '\0';
}

void ArmCommandDeadline(double seconds, absl::string_view stage) {
  DisarmCommandDeadline();  // the line is rewritten while no timer can fire
  const std::string line = absl::StrFormat(
      "vtctx-reader: %s: gave up after %.0f s (%s): a target's file or answer stalled it\n",
      g_command, seconds, stage);
  g_line_size = std::min(line.size(), sizeof g_line);
  std::memcpy(g_line, line.data(), g_line_size);
  struct sigaction action {};
  action.sa_handler = OnDeadline;
  sigemptyset(&action.sa_mask);
  sigaction(SIGALRM, &action, nullptr);
  const double whole = std::floor(seconds);
  itimerval timer{};
  timer.it_value.tv_sec = static_cast<time_t>(whole);
  timer.it_value.tv_usec = static_cast<suseconds_t>((seconds - whole) * 1e6);
  if (timer.it_value.tv_sec == 0 && timer.it_value.tv_usec == 0) timer.it_value.tv_usec = 1;
  setitimer(ITIMER_REAL, &timer, nullptr);
}

std::optional<double> SetupDeadline(const std::optional<AgentLoadOptions>& attach,
                                    std::optional<double> wait_s) {
  if (wait_s.has_value() && *wait_s <= 0) return std::nullopt;
  return kSetupDeadlineS + (attach ? 5 * attach->timeout_s : 0) + wait_s.value_or(0);
}

void DisarmCommandDeadline() {
  itimerval off{};
  setitimer(ITIMER_REAL, &off, nullptr);
}

}  // namespace vtctx::reader
