// The load report (docs/protocol.md, "Load report"): the one line the agent writes into the file
// its option report= names, for an attacher that cannot see the JVM's stderr (vtctx-reader
// attach). Header-only and exception-free: the agent encodes, the reader decodes.
//
//   active vtctx=<version> load=<startup|attached|again> java=<version> record_size=<bytes>
//          records=<handed out> bind=<mount|start|use> options=<the options in force>
//   inactive vtctx=<version> reason=<the one-line reason the agent also logs>
//
// Fields are single-space separated `key=value` words (a value holds no space or newline), in
// this order; the free text (options=, reason=) comes last and holds anything but a newline (a
// CR or LF in it becomes a space). A decoder takes the words up to the free text's key into
// `fields`, in order; a line without its free text, or with a word that is not key=value before
// it, is malformed.
#ifndef VTCTX_PROTOCOL_LOAD_REPORT_H_
#define VTCTX_PROTOCOL_LOAD_REPORT_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vtctx::protocol {

struct LoadReport {
  bool active = false;
  std::vector<std::pair<std::string, std::string>> fields;  // in line order
  std::string text;  // options= (active) or reason= (inactive)
};

inline constexpr std::string_view kLoadReportActive = "active";
inline constexpr std::string_view kLoadReportInactive = "inactive";

// The key of the free text.
constexpr std::string_view LoadReportTextKey(bool active) { return active ? "options" : "reason"; }

// The line (without its newline). A space or newline in a field value, or a newline in the text,
// is replaced by a space, so that the line always decodes to what was meant.
inline std::string EncodeLoadReport(const LoadReport& report) {
  auto clean = [](std::string_view value, bool spaces_too) {
    std::string out(value);
    for (char& c : out) {
      if (c == '\n' || c == '\r' || (spaces_too && c == ' ')) c = spaces_too ? '_' : ' ';
    }
    return out;
  };
  std::string line(report.active ? kLoadReportActive : kLoadReportInactive);
  for (const auto& [key, value] : report.fields) {
    line += ' ';
    line += key;
    line += '=';
    line += clean(value, true);
  }
  line += ' ';
  line += LoadReportTextKey(report.active);
  line += '=';
  line += clean(report.text, false);
  return line;
}

// Decodes `line` (a trailing newline or spaces are ignored). False, with `error` saying why, for
// anything that is not a load report.
inline bool DecodeLoadReport(std::string_view line, LoadReport* out, std::string* error) {
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r' || line.back() == ' ')) {
    line.remove_suffix(1);
  }
  *out = LoadReport{};
  std::string_view rest = line;
  auto consume = [&](std::string_view word) {
    if (rest.substr(0, word.size()) != word) return false;
    rest.remove_prefix(word.size());
    return true;
  };
  if (consume(kLoadReportActive) && consume(" ")) {
    out->active = true;
  } else if (rest = line; !(consume(kLoadReportInactive) && consume(" "))) {
    *error = "not a load report";
    return false;
  }
  const std::string text_key = std::string(LoadReportTextKey(out->active)) + "=";
  while (!rest.empty()) {
    if (consume(text_key)) {
      out->text = std::string(rest);
      return true;
    }
    const size_t space = rest.find(' ');
    const std::string_view word = rest.substr(0, space);
    const size_t eq = word.find('=');
    if (eq == std::string_view::npos || eq == 0) break;
    out->fields.emplace_back(std::string(word.substr(0, eq)), std::string(word.substr(eq + 1)));
    rest = space == std::string_view::npos ? std::string_view() : rest.substr(space + 1);
  }
  *error = "a load report without " + text_key;
  return false;
}

}  // namespace vtctx::protocol

#endif  // VTCTX_PROTOCOL_LOAD_REPORT_H_
