#include "output/flameGraphSvg.h"

#include <algorithm>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "target/untrustedText.h"
#include "vtctx/utf8.h"

namespace vtctx::reader {
namespace {

constexpr double kWidth = 1200;
constexpr int kFrameHeight = 16;
constexpr int kPad = 10;
constexpr int kTitleHeight = 28;
constexpr double kCharWidth = 6.2;  // advance of the 11 px monospace font
constexpr double kMinWidth = 2.0;   // px
// Frames drawn at most (each a few hundred bytes with its title): past it, the narrowest are left
// out, said in the title.
constexpr size_t kMaxDrawnFrames = 20000;

// XML character data or attribute text: what untrustedText.h refuses (XML 1.0 forbids most C0
// controls; invalid UTF-8 makes the document ill-formed) becomes U+FFFD, markup is escaped.
std::string Escape(absl::string_view text) {
  std::string out;
  ScanTargetText(
      text,
      [&](absl::string_view run) {
        for (char c : run) {
          switch (c) {
            case '<':
              out += "&lt;";
              break;
            case '>':
              out += "&gt;";
              break;
            case '&':
              out += "&amp;";
              break;
            case '"':
              out += "&quot;";
              break;
            case '\'':
              out += "&#39;";
              break;
            default:
              out += c;
          }
        }
      },
      [&](absl::string_view) { out += "\xef\xbf\xbd"; });
  return out;
}

// The first `n` characters of `text` (code points; a byte of invalid UTF-8 counts as one).
absl::string_view FirstCharacters(absl::string_view text, size_t n) {
  size_t at = 0;
  for (size_t i = 0; i < n && at < text.size(); ++i) {
    const size_t len = Utf8SequenceLength(std::string_view(text.data() + at, text.size() - at));
    at += len == 0 ? 1 : len;
  }
  return text.substr(0, at);
}

// Deterministic colour per frame; hue by kind.
std::string Colour(const std::string& name) {
  const unsigned h = static_cast<unsigned>(std::hash<std::string>{}(name) % 64);
  if (absl::EndsWith(name, "_[k]")) return absl::StrFormat("rgb(%d,%d,40)", 220 + h / 3, 120 + h);
  if (absl::StartsWith(name, "trace_") || absl::StartsWith(name, "span_") ||
      name.find('=') != std::string::npos) {
    return absl::StrFormat("rgb(%d,%d,230)", 120 + h, 160 + h / 2);  // vtctx's root frames
  }
  const bool java = name == "[interpreted]" || name == "[unknown jit]" ||
                    (name.find('(') != std::string::npos && name.find('.') < name.find('(') &&
                     name.find("::") == std::string::npos);
  if (java) return absl::StrFormat("rgb(%d,%d,%d)", 60 + h, 170 + h / 2, 60 + h / 2);
  return absl::StrFormat("rgb(%d,%d,%d)", 215 + h / 2, 80 + h * 2, 40 + h / 2);
}

// Java perf-map names carry return and parameter types; the bar shows Class.method.
std::string Short(const std::string& name) {
  const size_t paren = name.find('(');
  if (paren == std::string::npos || name[0] == '[') return name;
  std::string head = name.substr(0, paren);
  const size_t space = head.rfind(' ');
  if (space != std::string::npos && head.find('.') != std::string::npos)
    head = head.substr(space + 1);
  return head;
}

struct Canvas {
  double scale = 1;
  int height = 0;
  uint64_t total = 1;
  size_t drawn = 0;
  size_t left_out = 0;  // frames past kMaxDrawnFrames
  std::string out;
};

// One frame: `value` samples from sample `x` on, at `level` (0: the root).
void Draw(const std::string& name, uint64_t value, uint64_t x_samples, int level, Canvas& c) {
  const double w = static_cast<double>(value) * c.scale;
  if (w < kMinWidth) return;  // its children are narrower still
  if (c.drawn == kMaxDrawnFrames) {
    c.left_out++;
    return;
  }
  c.drawn++;
  const double x = kPad + static_cast<double>(x_samples) * c.scale;
  const int y = c.height - kPad - (level + 1) * kFrameHeight;
  const double share = 100.0 * static_cast<double>(value) / static_cast<double>(c.total);
  absl::StrAppendFormat(&c.out,
                        "<g><title>%s (%d samples, %.1f%%)</title><rect x=\"%.1f\" y=\"%d\" "
                        "width=\"%.1f\" height=\"%d\" fill=\"%s\" rx=\"1\"/>",
                        Escape(name), value, share, x, y, w, kFrameHeight - 1, Colour(name));
  const int fit = static_cast<int>((w - 4) / kCharWidth);
  if (fit >= 3) {
    // Cut by characters, never inside one (a CJK method name is 3 bytes a character).
    std::string label = Short(name);
    const absl::string_view head = FirstCharacters(label, static_cast<size_t>(fit));
    if (head.size() < label.size()) {
      label = std::string(FirstCharacters(label, static_cast<size_t>(fit - 2))) + "..";
    }
    absl::StrAppendFormat(&c.out, "<text x=\"%.1f\" y=\"%d\">%s</text>", x + 2,
                          y + kFrameHeight - 4, Escape(label));
  }
  c.out += "</g>\n";
}

}  // namespace

std::string RenderFlameGraph(const FoldedProfile& folded, const std::string& title) {
  // The stacks in name order, frame by frame: every frame's samples are then one run of
  // consecutive stacks, drawn in one sweep that keeps only the open frames (no tree).
  using Entry = std::pair<const std::vector<uint32_t>, uint64_t>;
  std::vector<const Entry*> order;
  uint64_t total = 0;
  size_t depth = 0;
  for (const Entry& e : folded.stacks) {
    order.push_back(&e);
    total += e.second;
    depth = std::max(depth, e.first.size());
  }
  std::sort(order.begin(), order.end(), [&](const Entry* a, const Entry* b) {
    const size_t n = std::min(a->first.size(), b->first.size());
    for (size_t i = 0; i < n; ++i) {
      if (a->first[i] == b->first[i]) continue;
      return folded.frames.Text(a->first[i]) < folded.frames.Text(b->first[i]);
    }
    return a->first.size() < b->first.size();
  });
  Canvas c;
  c.scale = (kWidth - 2 * kPad) / static_cast<double>(std::max<uint64_t>(total, 1));
  c.height = kTitleHeight + static_cast<int>(depth + 1) * kFrameHeight + 2 * kPad;
  c.total = std::max<uint64_t>(total, 1);
  struct Open {
    uint32_t id;
    uint64_t x;
    uint64_t value;
  };
  std::vector<Open> open;
  const auto close_to = [&](size_t keep) {
    while (open.size() > keep) {
      const Open& f = open.back();
      Draw(folded.frames.Text(f.id), f.value, f.x, static_cast<int>(open.size()), c);
      open.pop_back();
    }
  };
  uint64_t cursor = 0;
  for (const Entry* e : order) {
    const std::vector<uint32_t>& stack = e->first;
    size_t common = 0;
    while (common < open.size() && common < stack.size() && open[common].id == stack[common]) {
      ++common;
    }
    close_to(common);
    for (size_t i = common; i < stack.size(); ++i) open.push_back({stack[i], cursor, 0});
    for (Open& f : open) f.value += e->second;
    cursor += e->second;
  }
  close_to(0);
  Draw(absl::StrFormat("all (%d samples)", total), total, 0, 0, c);
  std::string head = absl::StrFormat(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%d\" viewBox=\"0 0 %.0f "
      "%d\" font-family=\"monospace\" font-size=\"11\">\n<rect width=\"100%%\" height=\"100%%\" "
      "fill=\"#fdfdf6\"/>\n<text x=\"%.0f\" y=\"%d\" text-anchor=\"middle\" "
      "font-size=\"15\">%s</text>\n",
      kWidth, c.height, kWidth, c.height, kWidth / 2, kPad + 14,
      Escape(c.left_out == 0
                 ? title
                 : absl::StrFormat("%s (%d narrow frames not drawn)", title, c.left_out)));
  return head + c.out + "</svg>\n";
}

}  // namespace vtctx::reader
