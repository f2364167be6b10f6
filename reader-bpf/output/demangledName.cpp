#include "output/demangledName.h"

#include <csetjmp>
#include <cstring>

#include "absl/strings/match.h"
#include "target/untrustedText.h"

// libiberty.h declares basename() unless told the C library does (glibc's C++ one differs).
#define HAVE_DECL_BASENAME 1
extern "C" {
#include <libiberty/demangle.h>
}

namespace vtctx::reader {
namespace {

// What the callback fills; plain data only (a longjmp leaves the callback through C frames).
struct Output {
  char* buffer;
  size_t capacity;  // the bound, plus room for one more piece's start
  size_t size;
  bool full;
  jmp_buf stop;
};

extern "C" void Collect(const char* piece, size_t length, void* opaque) {
  auto* out = static_cast<Output*>(opaque);
  const size_t take = std::min(length, out->capacity - out->size);
  std::memcpy(out->buffer + out->size, piece, take);
  out->size += take;
  if (out->size == out->capacity) {
    out->full = true;
    longjmp(out->stop, 1);
  }
}

// Runs the demangler into `out`; no object with a destructor lives in this frame (the longjmp
// lands here).
int Demangle(const char* mangled, Output* out) {
  if (setjmp(out->stop) != 0) return 1;
  return cplus_demangle_v3_callback(mangled, DMGL_PARAMS | DMGL_ANSI, Collect, out);
}

}  // namespace

std::optional<std::string> DemangleBounded(absl::string_view mangled, size_t max_bytes) {
  if (!absl::StartsWith(mangled, "_Z") || mangled.size() > kMaxMangledBytes) return std::nullopt;
  char input[kMaxMangledBytes + 1];
  std::memcpy(input, mangled.data(), mangled.size());
  input[mangled.size()] = '\0';
  std::string text(max_bytes + 1, '\0');  // one byte more than shown: tells a cut
  Output out{text.data(), text.size(), 0, false, {}};
  if (Demangle(input, &out) == 0 || out.size == 0) return std::nullopt;
  text.resize(out.size);
  if (!out.full) return text;
  std::string shown(text.substr(0, TextPrefixLength(text, max_bytes)));
  return shown + "...";
}

}  // namespace vtctx::reader
