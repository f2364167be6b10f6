// The demo's span-filtered flame graph, drawn by the reader's own renderer (the one behind
// `vtctx-reader profile --format svg`, reader-bpf/output/flameGraphSvg.h), from a folded file:
//
//   vtctx_demo_flamegraph IN.folded OUT.svg TITLE
//
// IN.folded: "frame;frame;... count" lines (root first), as `profile --format folded` writes
// them; lines that are not are skipped. Exit 0, or 1 with one line on stderr.
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <string>

#include "output/flameGraphSvg.h"

int main(int argc, char** argv) {
  if (argc != 4) {
    fputs("usage: vtctx_demo_flamegraph IN.folded OUT.svg TITLE\n", stderr);
    return 1;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    fprintf(stderr, "vtctx_demo_flamegraph: cannot read %s: %s\n", argv[1], strerror(errno));
    return 1;
  }
  std::map<std::string, uint64_t> lines;
  for (std::string line; std::getline(in, line);) {
    const size_t space = line.rfind(' ');
    if (space == std::string::npos || space == 0) continue;
    uint64_t count = 0;
    const char* end = line.data() + line.size();
    const auto [p, ec] = std::from_chars(line.data() + space + 1, end, count);
    if (ec != std::errc() || p != end || space + 1 == line.size()) continue;
    lines[line.substr(0, space)] += count;
  }
  const std::string svg =
      vtctx::reader::RenderFlameGraph(vtctx::reader::FoldedProfile::FromLines(lines), argv[3]);
  std::ofstream out(argv[2], std::ios::binary | std::ios::trunc);
  if (!out.write(svg.data(), static_cast<std::streamsize>(svg.size())) || !out.flush()) {
    fprintf(stderr, "vtctx_demo_flamegraph: cannot write %s\n", argv[2]);
    return 1;
  }
  return 0;
}
