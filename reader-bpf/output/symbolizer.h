// Address -> frame for `profile` stacks: user addresses through the process's mapped ELF files
// (.symtab, else .dynsym; read through /proc/<pid>/map_files, the inode the process mapped, never
// by a path the process names) or, for anonymous (JIT) memory, the JVM's own names
// (jitCodeNames.h), expanded into the methods inlined there (nmethodScopes.h), or a
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
#include "hotspot/nmethodScopes.h"
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
  // but the last marked inlined), else UserFrame's one.
  virtual std::vector<Frame> UserFrames(uint64_t address, bool return_address) {
    return {UserFrame(address, return_address)};
  }
  virtual Frame KernelFrame(uint64_t address) = 0;
};

class Symbolizer final : public FrameNamer {
 public:
  // Snapshots the maps of the held `target` now. Call it while the process runs (JIT code and
  // dlopen'ed libraries seen during sampling must still be mapped). Anonymous code is named from
  // `jit` (jitCodeNames.h) when given, else from perf-<pid>.map in the process's /tmp if present;
  // with `inlined` (nmethodScopes.h, with `jit`), JIT frames are expanded into the methods
  // inlined there.
  explicit Symbolizer(const TargetProcess& target, const SymbolTable* jit = nullptr,
                      NmethodScopes* inlined = nullptr);

  Frame UserFrame(uint64_t address, bool return_address) override;
  std::vector<Frame> UserFrames(uint64_t address, bool return_address) override;
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
  NmethodScopes* inlined_;
  std::unique_ptr<SymbolTable> perf_map_;
  std::unique_ptr<SymbolTable> kallsyms_;
};

}  // namespace vtctx::reader

#endif  // VTCTX_READER_SYMBOLIZER_H_
