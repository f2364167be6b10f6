#include "hotspot/jvmCode.h"

#include <utility>
#include <vector>

#include "hotspot/jvmFacts.h"
#include "target/procMaps.h"

namespace vtctx::reader {

absl::StatusOr<std::unique_ptr<JvmCode>> JvmCode::Open(const TargetProcess& target) {
  absl::StatusOr<std::vector<Mapping>> maps = ReadMapsIn(target.dir());
  if (!maps.ok()) return maps.status();
  absl::StatusOr<std::unique_ptr<ProcessMemory>> memory = target.Memory();
  if (!memory.ok()) return memory.status();
  absl::StatusOr<VmStructs> vm = OpenVmStructs(target.dir(), *maps, **memory);
  if (!vm.ok()) return vm.status();
  std::unique_ptr<JvmCode> code(new JvmCode());
  code->memory_ = *std::move(memory);
  absl::StatusOr<std::unique_ptr<CodeCacheView>> cache =
      CodeCacheView::Open(*code->memory_, *vm, *maps);
  if (!cache.ok()) return cache.status();
  code->code_cache_ = *std::move(cache);
  code->native_frames_ = std::make_unique<NativeFrames>(target.dir(), *maps);
  code->code_cache_->set_native_frames(code->native_frames_.get());
  absl::StatusOr<MethodLayout> methods = MethodLayout::From(*vm);
  if (!methods.ok()) {
    code->missing_ = methods.status();
    return code;
  }
  code->methods_ = std::make_unique<MethodNames>(*code->memory_, *methods);
  absl::StatusOr<NmethodLayout> nmethods = NmethodLayout::From(*vm);
  if (!nmethods.ok()) {
    code->missing_ = nmethods.status();
    return code;
  }
  code->inlined_ = std::make_unique<NmethodScopes>(*code->memory_, *code->code_cache_,
                                                   *code->methods_, *nmethods);
  return code;
}

}  // namespace vtctx::reader
