// `profile --format svg`: a flame graph as one self-contained SVG (no script, no external file):
// root at the bottom, children sorted by name, width = samples, each frame's title giving its
// samples and share. Colours tell frame kinds apart: Java (JIT or interpreted), native, kernel,
// and the root frames vtctx adds (attributes, trace, span). Frames narrower than 2 px are not
// drawn, nor their children (their samples still count in the frames below).
#ifndef VTCTX_READER_FLAME_GRAPH_SVG_H_
#define VTCTX_READER_FLAME_GRAPH_SVG_H_

#include <cstdint>
#include <map>
#include <string>

namespace vtctx::reader {

// `folded`: "frame;frame;..." (root first) -> samples, as profile's folded output has them.
std::string RenderFlameGraph(const std::map<std::string, uint64_t>& folded,
                             const std::string& title);

}  // namespace vtctx::reader

#endif  // VTCTX_READER_FLAME_GRAPH_SVG_H_
