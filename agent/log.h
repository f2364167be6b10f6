// Agent logging: one line per message on stderr, prefixed "vtctx: ". Never used on the
// mount/unmount path.
#ifndef VTCTX_AGENT_LOG_H_
#define VTCTX_AGENT_LOG_H_

namespace vtctx {

enum class LogLevel { kOff = 0, kError = 1, kInfo = 2, kDebug = 3 };

void SetLogLevel(LogLevel level);
bool LogEnabled(LogLevel level);

void LogError(const char* format, ...) __attribute__((format(printf, 1, 2)));
void LogInfo(const char* format, ...) __attribute__((format(printf, 1, 2)));
void LogDebug(const char* format, ...) __attribute__((format(printf, 1, 2)));
// Whatever the level, even log=off: for the one line that says why a load failed.
void LogAlways(const char* format, ...) __attribute__((format(printf, 1, 2)));

}  // namespace vtctx

#endif  // VTCTX_AGENT_LOG_H_
