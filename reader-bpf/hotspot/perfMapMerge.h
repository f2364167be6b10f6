// The two perf maps `profile` asks a JVM for (when sampling starts and when it stops,
// jitCodeNames.h) merged so that no address gets a wrong name:
//   - an address both snapshots name alike: that name;
//   - an address only one snapshot names (compiled during the run, or freed during it): that name;
//   - an address the two name differently (code freed and the space reused): "[unknown jit]";
//   - HotSpot's "Interpreter" blob: "[interpreted]".
// Both tables' ranges are disjoint (symbolTable.h), so the merge is one sorted pass whatever the
// maps hold (a JVM's user can write its perf map: 160,000 nested ranges took 49 s of CPU when each
// range was compared with every one it overlapped).
#ifndef VTCTX_READER_PERF_MAP_MERGE_H_
#define VTCTX_READER_PERF_MAP_MERGE_H_

#include "target/symbolTable.h"

namespace vtctx::reader {

SymbolTable MergePerfMaps(const SymbolTable& start, const SymbolTable& end);

}  // namespace vtctx::reader

#endif  // VTCTX_READER_PERF_MAP_MERGE_H_
