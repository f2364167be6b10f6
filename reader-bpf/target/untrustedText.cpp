#include "target/untrustedText.h"

#include <cstdint>
#include <string_view>

#include "absl/strings/str_format.h"
#include "vtctx/utf8.h"

namespace vtctx::reader {
namespace {

// Bytes of the unit at the start of `rest` (non-empty): a UTF-8 sequence, or one invalid byte;
// `shown` says whether the rule lets it through.
size_t NextUnit(std::string_view rest, bool& shown) {
  const size_t len = Utf8SequenceLength(rest);
  const auto b0 = static_cast<uint8_t>(rest[0]);
  if (len == 0) {
    shown = false;
    return 1;
  }
  // C1 controls are U+0080..U+009F: 0xc2 0x80..0x9f in UTF-8.
  const bool c1 = len == 2 && b0 == 0xc2 && static_cast<uint8_t>(rest[1]) < 0xa0;
  shown = !(c1 || (len == 1 && (b0 < 0x20 || b0 == 0x7f)));
  return len;
}

}  // namespace

void ScanTargetText(absl::string_view text, absl::FunctionRef<void(absl::string_view)> keep,
                    absl::FunctionRef<void(absl::string_view)> refuse) {
  std::string_view rest(text.data(), text.size());
  size_t run = 0;  // bytes of shown text at the front of `rest`
  while (run < rest.size()) {
    bool shown = false;
    const size_t len = NextUnit(rest.substr(run), shown);
    if (shown) {
      run += len;
      continue;
    }
    if (run > 0) keep(absl::string_view(rest.data(), run));
    refuse(absl::string_view(rest.data() + run, len));
    rest.remove_prefix(run + len);
    run = 0;
  }
  if (run > 0) keep(absl::string_view(rest.data(), run));
}

bool IsShowableText(absl::string_view text) {
  bool ok = true;
  ScanTargetText(
      text, [](absl::string_view) {}, [&](absl::string_view) { ok = false; });
  return ok;
}

size_t TextPrefixLength(absl::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return text.size();
  size_t n = max_bytes;
  // Back off from a cut inside a sequence: text[n] continues one that starts at most 3 bytes
  // before and is well-formed through text[n].
  for (size_t back = 1; back <= 3 && back <= n; ++back) {
    const uint8_t lead = static_cast<uint8_t>(text[n - back]);
    if ((lead & 0xc0) == 0x80) continue;  // a continuation byte: look further back
    const std::string_view seq(text.data() + n - back, text.size() - (n - back));
    if (Utf8SequenceLength(seq) > back) n -= back;
    break;
  }
  return n;
}

std::string Printable(absl::string_view text, size_t max_bytes) {
  const size_t shown = TextPrefixLength(text, max_bytes);
  std::string out;
  out.reserve(shown + 8);
  ScanTargetText(
      text.substr(0, shown),
      [&](absl::string_view run) {
        for (char c : run) {
          // A backslash of the target's is escaped too: no \xNN in the output is a forgery.
          if (c == '\\') {
            out += "\\x5c";
          } else {
            out.push_back(c);
          }
        }
      },
      [&](absl::string_view unit) {
        for (char c : unit) absl::StrAppendFormat(&out, "\\x%02x", static_cast<uint8_t>(c));
      });
  if (shown < text.size()) out += "...";
  return out;
}

std::string SafeName(absl::string_view text, size_t max_bytes) {
  const size_t shown = TextPrefixLength(text, max_bytes);
  std::string out;
  out.reserve(shown + 3);
  ScanTargetText(
      text.substr(0, shown), [&](absl::string_view run) { out.append(run.data(), run.size()); },
      [&](absl::string_view) { out.push_back('_'); });
  if (shown < text.size()) out += "...";
  return out;
}

}  // namespace vtctx::reader
