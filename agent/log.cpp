#include "log.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdarg>
#include <cstdio>

namespace vtctx {
namespace {

std::atomic<LogLevel> g_level{LogLevel::kInfo};

void Emit(const char* format, va_list args) {
  char line[1024];
  int n = std::snprintf(line, sizeof line, "vtctx: ");
  const int m = std::vsnprintf(line + n, sizeof line - n - 1, format, args);
  n = (m < 0) ? n : std::min<int>(n + m, sizeof line - 2);
  line[n++] = '\n';
  // One write() per line so that lines from concurrent threads never interleave.
  ssize_t ignored = write(STDERR_FILENO, line, n);
  (void)ignored;
}

}  // namespace

void SetLogLevel(LogLevel level) { g_level.store(level, std::memory_order_relaxed); }

bool LogEnabled(LogLevel level) {
  return level != LogLevel::kOff && level <= g_level.load(std::memory_order_relaxed);
}

#define VTCTX_DEFINE_LOG(name, enabled) \
  void name(const char* format, ...) {  \
    if (!(enabled)) return;             \
    va_list args;                       \
    va_start(args, format);             \
    Emit(format, args);                 \
    va_end(args);                       \
  }
VTCTX_DEFINE_LOG(LogError, LogEnabled(LogLevel::kError))
VTCTX_DEFINE_LOG(LogInfo, LogEnabled(LogLevel::kInfo))
VTCTX_DEFINE_LOG(LogDebug, LogEnabled(LogLevel::kDebug))
VTCTX_DEFINE_LOG(LogAlways, true)
#undef VTCTX_DEFINE_LOG

}  // namespace vtctx
