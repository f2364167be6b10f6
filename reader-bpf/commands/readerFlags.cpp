#include "commands/readerFlags.h"

#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace vtctx::reader {
namespace {

constexpr ReaderFlag kFlags[] = {
#define VTCTX_READER_FLAG_ROW(name, short_name, commands, value, default_value, meaning) \
  {name, short_name, commands, value, default_value, meaning},
    VTCTX_READER_FLAGS(VTCTX_READER_FLAG_ROW)
#undef VTCTX_READER_FLAG_ROW
};

constexpr int kCommandBits = 5;  // kResolve .. kVerify
constexpr size_t kHelpColumns = 100;
constexpr size_t kMeaningColumn = 19;  // "  --name VALUE     " then the meaning

// `text` wrapped to lines of at most kHelpColumns, each indented to kMeaningColumn; the first line
// continues `line`.
void AppendWrapped(std::string& out, std::string line, absl::string_view text) {
  if (line.size() + 1 > kMeaningColumn) {
    out += line + "\n";
    line.clear();
  }
  line.resize(kMeaningColumn, ' ');
  bool line_empty = true;
  for (absl::string_view word : absl::StrSplit(text, ' ', absl::SkipEmpty())) {
    if (!line_empty && line.size() + 1 + word.size() > kHelpColumns) {
      out += line + "\n";
      line = std::string(kMeaningColumn, ' ');
      line_empty = true;
    }
    if (!line_empty) line += ' ';
    line.append(word.data(), word.size());
    line_empty = false;
  }
  out += line + "\n";
}

}  // namespace

std::span<const ReaderFlag> ReaderFlags() { return kFlags; }

std::span<const FlagSpec> FlagSpecsOf(ReaderCommand command) {
  static const auto* specs = [] {
    auto* all = new std::vector<FlagSpec>[kCommandBits];  // per command bit; never freed
    for (int bit = 0; bit < kCommandBits; ++bit) {
      for (const ReaderFlag& f : kFlags) {
        if ((f.commands & (1u << bit)) == 0) continue;
        all[bit].push_back(
            {f.name, !f.value.empty(), absl::StartsWith(f.value, "[="), f.short_name});
      }
    }
    return all;
  }();
  for (int bit = 0; bit < kCommandBits; ++bit) {
    if (command == (1u << bit)) return specs[bit];
  }
  return {};
}

absl::string_view FlagDefault(ReaderCommand command, absl::string_view name) {
  for (const ReaderFlag& f : kFlags) {
    if (f.name == name && (f.commands & command) != 0) return f.default_value;
  }
  return "";
}

absl::string_view LongFlagName(ReaderCommand command, absl::string_view word) {
  if (word.size() != 2 || word[0] != '-') return "";
  for (const ReaderFlag& f : kFlags) {
    if ((f.commands & command) != 0 && !f.short_name.empty() && f.short_name == word.substr(1)) {
      return f.name;
    }
  }
  return "";
}

std::string FlagsHelp(ReaderCommand command) {
  std::string out;
  for (const ReaderFlag& f : kFlags) {
    if ((f.commands & command) == 0) continue;
    std::string line = absl::StrCat("  --", f.name);
    if (!f.value.empty())
      absl::StrAppend(&line, absl::StartsWith(f.value, "[=") ? "" : " ", f.value);
    if (!f.short_name.empty()) {
      absl::StrAppend(&line, ", -", f.short_name, f.value.empty() ? "" : " ", f.value);
    }
    const std::string meaning = f.default_value.empty()
                                    ? std::string(f.meaning)
                                    : absl::StrCat(f.meaning, " (default ", f.default_value, ")");
    AppendWrapped(out, line, meaning);
  }
  return out;
}

std::string FlagDocRow(const ReaderFlag& f) {
  std::string flag = absl::StrCat("--", f.name);
  if (!f.value.empty()) absl::StrAppend(&flag, absl::StartsWith(f.value, "[=") ? "" : " ", f.value);
  if (!f.short_name.empty()) {
    absl::StrAppend(&flag, "`, `-", f.short_name, f.value.empty() ? "" : " ", f.value);
  }
  std::string commands;
  for (const auto& [bit, name] : {std::pair{kResolve, "resolve"}, std::pair{kSyscalls, "syscalls"},
                                  std::pair{kProfile, "profile"}, std::pair{kVerify, "verify"},
                                  std::pair{kAttach, "attach"}}) {
    if ((f.commands & bit) != 0) absl::StrAppend(&commands, commands.empty() ? "" : ", ", name);
  }
  // A '|' in a cell would end it (Markdown).
  std::string meaning(f.meaning);
  std::string escaped;
  for (char c : meaning) escaped += c == '|' ? std::string("\\|") : std::string(1, c);
  return absl::StrCat("| `", flag, "` | ", commands, " | ",
                      f.default_value.empty() ? "" : absl::StrCat("`", f.default_value, "`"), " | ",
                      escaped, " |");
}

}  // namespace vtctx::reader
