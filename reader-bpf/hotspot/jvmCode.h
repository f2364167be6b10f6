// A live HotSpot JVM's code as `profile` asks about it, opened once per target: which code blob
// holds a pc and its frame (codeCacheView.h, for the unwinder while samples arrive), the Java
// method an interpreted frame runs (methodNames.h) and the methods the JIT inlined at a pc
// (nmethodScopes.h, when sampling ends). All three read the JVM's memory at the moment of asking,
// through one reader, with what gHotSpotVMStructs names.
#ifndef VTCTX_READER_JVM_CODE_H_
#define VTCTX_READER_JVM_CODE_H_

#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hotspot/codeCacheView.h"
#include "hotspot/methodNames.h"
#include "hotspot/nmethodScopes.h"
#include "target/processMemory.h"
#include "target/targetProcess.h"

namespace vtctx::reader {

class JvmCode {
 public:
  // For the held HotSpot `target`: fails when its memory, its VMStructs or its code cache cannot
  // be read (the unwinder needs the code cache); method names and inlining are optional parts,
  // each absent with the reason (a JDK whose layout is not known).
  static absl::StatusOr<std::unique_ptr<JvmCode>> Open(const TargetProcess& target);

  CodeCacheView& code_cache() { return *code_cache_; }
  MethodNames* methods() { return methods_.get(); }
  NmethodScopes* inlined() { return inlined_.get(); }
  // Why methods() or inlined() is absent (OK when both are there).
  const absl::Status& missing() const { return missing_; }

 private:
  std::unique_ptr<MemoryReader> memory_;         // read by the three below
  std::unique_ptr<NativeFrames> native_frames_;  // read by code_cache_
  std::unique_ptr<CodeCacheView> code_cache_;
  std::unique_ptr<MethodNames> methods_;
  std::unique_ptr<NmethodScopes> inlined_;
  absl::Status missing_;
};

}  // namespace vtctx::reader

#endif  // VTCTX_READER_JVM_CODE_H_
