// `profile --format svg`: a flame graph as one self-contained SVG (no script, no external file):
// root at the bottom, children sorted by name, width = samples, each frame's title giving its
// samples and share. Colours tell frame kinds apart: Java (JIT or interpreted), native, kernel,
// and the root frames vtctx adds (attributes, trace, span). Frames narrower than 2 px are not
// drawn, nor their children (their samples still count in the frames below), and at most 20,000
// frames are (the narrowest past it are left out, said in the title). Always well-formed XML:
// every text goes through untrustedText.h, labels are cut between characters.
#ifndef VTCTX_READER_FLAME_GRAPH_SVG_H_
#define VTCTX_READER_FLAME_GRAPH_SVG_H_

#include <string>

#include "output/foldedProfile.h"

namespace vtctx::reader {

// `folded`: the stacks as profile's folded output has them (root first) with their samples.
std::string RenderFlameGraph(const FoldedProfile& folded, const std::string& title);

}  // namespace vtctx::reader

#endif  // VTCTX_READER_FLAME_GRAPH_SVG_H_
