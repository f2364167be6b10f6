// Names of JIT-compiled Java code, asked of the JVM itself: no -XX:+DumpPerfMapAtExit, no jcmd,
// nothing for the user to arrange. Through the attach socket (hotspotAttach.h) the reader runs
// `Compiler.perfmap` (JDK 17+), which makes HotSpot write every code blob it holds to
// /tmp/perf-<nspid>.map in its own mount namespace, and reads that file through /proc/<pid>/root.
// Why this and not an agent writing the map from CompiledMethodLoad events: docs/reader.md
// ("Java frames").
//
// Two snapshots: when sampling starts and when it stops. Code cache churn between them is handled
// so that no address gets a wrong name:
//   - an address both snapshots name alike: that name;
//   - an address only one snapshot names (compiled during the run, or freed during it): that name;
//   - an address the two name differently (code freed and the space reused): "[unknown jit]".
// What neither snapshot can see, code both compiled and freed between them at an address later
// reused, is the one case left (docs/reader.md).
//
// The same connection tells whether the JVM keeps frame pointers in JIT code: without
// -XX:+PreserveFramePointer the kernel's frame-pointer walk stops at the first compiled frame.
#ifndef VTCTX_READER_JIT_CODE_NAMES_H_
#define VTCTX_READER_JIT_CODE_NAMES_H_

#include <memory>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "hotspot/hotspotAttach.h"
#include "hotspot/jvmProcess.h"
#include "hotspot/perfMapMerge.h"
#include "target/symbolTable.h"
#include "target/targetProcess.h"

namespace vtctx::reader {

class JitCodeNames {
 public:
  // For a HotSpot JVM whose attach mechanism works: connects and takes the first snapshot. Else
  // nullptr, with one stderr line saying why JIT frames will be unnamed (not for a non-JVM).
  static std::unique_ptr<JitCodeNames> ForTarget(const TargetProcess& target, double timeout_s);

  // Takes the end snapshot (a failure keeps the start one, with a warning).
  void Finish();
  // The merged names (empty before Finish()).
  const SymbolTable& names() const { return merged_; }
  // false: -XX:-PreserveFramePointer; nullopt: not known.
  std::optional<bool> preserve_frame_pointer() const { return preserve_frame_pointer_; }

 private:
  JitCodeNames(JvmProcess jvm, HotSpotAttach attach)
      : jvm_(std::move(jvm)), attach_(std::move(attach)) {}
  absl::StatusOr<SymbolTable> Snapshot(double timeout_s);
  // Each of the second snapshot's two steps (the dump, the read): within the report's deadline.
  static constexpr double kEndSnapshotTimeoutS = 4;

  JvmProcess jvm_;
  HotSpotAttach attach_;
  SymbolTable start_;
  SymbolTable merged_;
  std::optional<bool> preserve_frame_pointer_;
};

}  // namespace vtctx::reader

#endif  // VTCTX_READER_JIT_CODE_NAMES_H_
