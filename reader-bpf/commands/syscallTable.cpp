#include "commands/syscallTable.h"

#include <algorithm>
#include <array>

#include "absl/strings/string_view.h"

namespace vtctx::reader {
namespace {

struct SyscallEntry {
  absl::string_view name;
  int nr;
};

// Generated: {"read", 0}, {"write", 1}, ...
constexpr SyscallEntry kSyscalls[] = {
#include "syscallNames.inc"
};

}  // namespace

std::optional<int> SyscallNumber(absl::string_view name) {
  for (const SyscallEntry& e : kSyscalls) {
    if (e.name == name) return e.nr;
  }
  return std::nullopt;
}

absl::string_view SyscallName(long nr) {
  for (const SyscallEntry& e : kSyscalls) {
    if (e.nr == nr) return e.name;
  }
  return {};
}

}  // namespace vtctx::reader
