// Address -> frame for `profile` stacks: user addresses through the process's mapped ELF files
// (.symtab, else .dynsym; read through /proc/<pid>/map_files, the inode the process mapped, never
// by a path the process names) or, for anonymous (JIT) memory, the JVM's own names
// (jitCodeNames.h), expanded into the methods inlined there (nmethodScopes.h), interpreted frames
// by the Method* their frame holds (methodNames.h), or a
// perf-<pid>.map in the process's /tmp (read in its view and with its credentials, bounded:
// targetView.h); kernel addresses through /proc/kallsyms (suffixed "_[k]",
// as perf's folded output does). Anonymous executable code nothing names is "[unknown jit]",
// never a guess.
#ifndef VTCTX_READER_SYMBOLIZER_H_
#define VTCTX_READER_SYMBOLIZER_H_

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "hotspot/jvmCode.h"
#include "hotspot/userStackUnwind.h"
#include "target/procMaps.h"
#include "target/symbolTable.h"
#include "target/targetProcess.h"

namespace vtctx::reader {

// One named frame: its name, and the module it lies in (a file path, "[jit]" for a JVM's code
// cache or another anonymous executable mapping, "[kernel.kallsyms]", or "" when unknown).
struct Frame {
  std::string name;
  std::string module;
  uint64_t address = 0;  // the address looked up (a return address minus one)
  // Inlined into the next frame (its caller): the two are one machine frame, at one address.
  bool inlined = false;
};

// Names stack addresses (the Symbolizer below; fixed names in unit tests).
class FrameNamer {
 public:
  virtual ~FrameNamer() = default;
  // `return_address`: the address is a return address (every frame but the innermost), so the
  // call instruction is looked up (address - 1).
  virtual Frame UserFrame(uint64_t address, bool return_address) = 0;
  // The frames at a user address, innermost first: several where JIT code inlined methods (all
  // but the last marked inlined), else UserFrame's one. `interpreted`: what the unwinder read of
  // an interpreted frame there (zeros: none), which names its method.
  virtual std::vector<Frame> UserFrames(uint64_t address, bool return_address,
                                        const InterpretedSlots& interpreted = {}) {
    (void)interpreted;
    return {UserFrame(address, return_address)};
  }
  virtual Frame KernelFrame(uint64_t address) = 0;
};

class Symbolizer final : public FrameNamer {
 public:
  // Snapshots the maps of the held `target` now. Call it while the process runs (JIT code and
  // dlopen'ed libraries seen during sampling must still be mapped). Anonymous code is named from
  // `jit` (jitCodeNames.h) when given, else from perf-<pid>.map in the process's /tmp if present;
  // with `code` (jvmCode.h, with `jit`), JIT frames are expanded into the methods inlined there
  // and interpreted frames named.
  explicit Symbolizer(const TargetProcess& target, const SymbolTable* jit = nullptr,
                      JvmCode* code = nullptr);

  Frame UserFrame(uint64_t address, bool return_address) override;
  std::vector<Frame> UserFrames(uint64_t address, bool return_address,
                                const InterpretedSlots& interpreted = {}) override;
  Frame KernelFrame(uint64_t address) override;
  std::string User(uint64_t address, bool return_address) {
    return UserFrame(address, return_address).name;
  }
  std::string Kernel(uint64_t address) { return KernelFrame(address).name; }

 private:
  const SymbolTable& FileSymbols(const MappedFile& file);
  uint64_t FileBias(const MappedFile& file);

  const TargetProcess& target_;
  std::vector<MappedFile> files_;
  std::vector<Mapping> anonymous_;
  std::map<std::string, std::unique_ptr<SymbolTable>> file_symbols_;  // by path
  std::map<std::string, uint64_t> file_bias_;
  const SymbolTable* jit_;
  JvmCode* code_;
  std::unique_ptr<SymbolTable> perf_map_;
  std::unique_ptr<SymbolTable> kallsyms_;

 public:
  // Interpreted frames named by their Method*, and those whose slots did not lead to a method
  // (labelled kInterpreted).
  uint64_t interpreted_named = 0;
  uint64_t interpreted_refused = 0;
};

}  // namespace vtctx::reader

#endif  // VTCTX_READER_SYMBOLIZER_H_
