#include "output/flameGraphSvg.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"

namespace vtctx::reader {
namespace {

constexpr double kWidth = 1200;
constexpr int kFrameHeight = 16;
constexpr int kPad = 10;
constexpr int kTitleHeight = 28;
constexpr double kCharWidth = 6.2;  // advance of the 11 px monospace font
constexpr double kMinWidth = 2.0;   // px

struct Node {
  uint64_t value = 0;
  std::map<std::string, std::unique_ptr<Node>> children;  // by name: drawn in name order
};

int Depth(const Node& node) {
  int deepest = 0;
  for (const auto& [_, child] : node.children) deepest = std::max(deepest, Depth(*child));
  return deepest + 1;
}

std::string Escape(const std::string& text) {
  std::string out;
  for (char c : text) {
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
      default:
        out += c;
    }
  }
  return out;
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
  double scale;
  int height;
  uint64_t total;
  std::string out;
};

void Draw(const std::string& name, const Node& node, double x, int level, Canvas& c) {
  const double w = static_cast<double>(node.value) * c.scale;
  if (w < kMinWidth) return;
  const int y = c.height - kPad - (level + 1) * kFrameHeight;
  const double share = 100.0 * static_cast<double>(node.value) / static_cast<double>(c.total);
  absl::StrAppendFormat(&c.out,
                        "<g><title>%s (%d samples, %.1f%%)</title><rect x=\"%.1f\" y=\"%d\" "
                        "width=\"%.1f\" height=\"%d\" fill=\"%s\" rx=\"1\"/>",
                        Escape(name), node.value, share, x, y, w, kFrameHeight - 1, Colour(name));
  const int fit = static_cast<int>((w - 4) / kCharWidth);
  if (fit >= 3) {
    std::string label = Short(name);
    if (static_cast<int>(label.size()) > fit) label = label.substr(0, fit - 2) + "..";
    absl::StrAppendFormat(&c.out, "<text x=\"%.1f\" y=\"%d\">%s</text>", x + 2,
                          y + kFrameHeight - 4, Escape(label));
  }
  c.out += "</g>\n";
  double cx = x;
  for (const auto& [child_name, child] : node.children) {
    Draw(child_name, *child, cx, level + 1, c);
    cx += static_cast<double>(child->value) * c.scale;
  }
}

}  // namespace

std::string RenderFlameGraph(const std::map<std::string, uint64_t>& folded,
                             const std::string& title) {
  Node root;
  for (const auto& [stack, count] : folded) {
    root.value += count;
    Node* node = &root;
    for (absl::string_view frame : absl::StrSplit(stack, ';')) {
      std::unique_ptr<Node>& child = node->children[std::string(frame)];
      if (!child) child = std::make_unique<Node>();
      child->value += count;
      node = child.get();
    }
  }
  Canvas c{(kWidth - 2 * kPad) / static_cast<double>(std::max<uint64_t>(root.value, 1)),
           kTitleHeight + Depth(root) * kFrameHeight + 2 * kPad, std::max<uint64_t>(root.value, 1),
           ""};
  c.out = absl::StrFormat(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%d\" viewBox=\"0 0 %.0f "
      "%d\" font-family=\"monospace\" font-size=\"11\">\n<rect width=\"100%%\" height=\"100%%\" "
      "fill=\"#fdfdf6\"/>\n<text x=\"%.0f\" y=\"%d\" text-anchor=\"middle\" "
      "font-size=\"15\">%s</text>\n",
      kWidth, c.height, kWidth, c.height, kWidth / 2, kPad + 14, Escape(title));
  Draw(absl::StrFormat("all (%d samples)", root.value), root, kPad, 0, c);
  c.out += "</svg>\n";
  return c.out;
}

}  // namespace vtctx::reader
