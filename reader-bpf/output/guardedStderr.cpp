#include "output/guardedStderr.h"

#include <unistd.h>

#include <cerrno>
#include <cstdint>

#include "absl/strings/str_format.h"
#include "target/untrustedText.h"

namespace vtctx::reader {
namespace {

// Bytes at the end of `text` that may start a UTF-8 character the next write completes: a lead
// byte and fewer continuation bytes than it announces (at most 3).
size_t IncompleteTail(absl::string_view text) {
  for (size_t back = 1; back <= 3 && back <= text.size(); ++back) {
    const auto b = static_cast<uint8_t>(text[text.size() - back]);
    if ((b & 0xc0) == 0x80) continue;
    const size_t need = (b & 0xe0) == 0xc0   ? 2
                        : (b & 0xf0) == 0xe0 ? 3
                        : (b & 0xf8) == 0xf0 ? 4
                                             : 1;
    return need > back ? back : 0;
  }
  return 0;
}

bool WriteAll(const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(STDERR_FILENO, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

struct Guard {
  std::string carry;
};

ssize_t GuardWrite(void* cookie, const char* buf, size_t size) {
  auto* guard = static_cast<Guard*>(cookie);
  // Nothing is reported back: a diagnostic that cannot be written is lost either way.
  WriteAll(GuardText(absl::string_view(buf, size), guard->carry));
  return static_cast<ssize_t>(size);
}

int GuardClose(void* cookie) {
  auto* guard = static_cast<Guard*>(cookie);
  std::string rest;
  // A character that never completed is invalid UTF-8: shown as \xNN.
  for (char c : guard->carry) absl::StrAppendFormat(&rest, "\\x%02x", static_cast<uint8_t>(c));
  WriteAll(rest);
  delete guard;
  return 0;
}

}  // namespace

std::string GuardText(absl::string_view text, std::string& carry) {
  std::string data = carry + std::string(text);
  const size_t hold = IncompleteTail(data);
  carry = data.substr(data.size() - hold);
  data.resize(data.size() - hold);
  std::string out;
  out.reserve(data.size());
  ScanTargetText(
      data, [&](absl::string_view run) { out.append(run.data(), run.size()); },
      [&](absl::string_view unit) {
        if (unit == "\n" || unit == "\t") {
          out.append(unit.data(), unit.size());
          return;
        }
        for (char c : unit) absl::StrAppendFormat(&out, "\\x%02x", static_cast<uint8_t>(c));
      });
  return out;
}

void GuardStderr() {
  cookie_io_functions_t io{};
  io.write = GuardWrite;
  io.close = GuardClose;
  auto* guard = new Guard();
  FILE* stream = fopencookie(guard, "w", io);
  if (stream == nullptr) {
    delete guard;
    return;
  }
  setvbuf(stream, nullptr, _IONBF, 0);
  stderr = stream;
}

}  // namespace vtctx::reader
