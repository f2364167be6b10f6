// C++ names (Itanium ABI, "_Z...") demangled for frames, within bounds: a name's demangled form can
// grow exponentially with its length (nested substitutions double it at every level: a 9 KB name
// demangled by __cxa_demangle took 2 GiB), so the input is at most kMaxMangledBytes and the
// output stops at the caller's bound.
//
// The demangler is GNU libiberty's (Debian's libiberty-dev, the one in c++filt and libstdc++'s
// __cxa_demangle), through its callback interface, which writes the output in pieces and
// allocates no memory: the callback counts, and once past the bound it ends the demangling by a
// longjmp back to the caller (the callback interface's frames are C, with no heap memory and
// nothing to destroy).
#ifndef VTCTX_READER_DEMANGLED_NAME_H_
#define VTCTX_READER_DEMANGLED_NAME_H_

#include <cstddef>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace vtctx::reader {

inline constexpr size_t kMaxMangledBytes = 4096;

// The demangled form of `mangled`, at most `max_bytes` of it (then "..." follows, cut at a
// character); nullopt when `mangled` is not an Itanium ABI name, is malformed or is longer than
// kMaxMangledBytes.
std::optional<std::string> DemangleBounded(absl::string_view mangled, size_t max_bytes);

}  // namespace vtctx::reader

#endif  // VTCTX_READER_DEMANGLED_NAME_H_
