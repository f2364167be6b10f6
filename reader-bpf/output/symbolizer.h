// Address -> frame for `profile` stacks: user addresses through the process's mapped ELF files
// (.symtab, else .dynsym) or, for anonymous (JIT) memory, the JVM's own names (jitCodeNames.h) or
// a perf-<pid>.map in the process's /tmp; kernel addresses through /proc/kallsyms (suffixed
// "_[k]", as perf's folded output does). Anonymous executable code nothing names is
// "[unknown jit]", never a guess.
#ifndef VTCTX_READER_SYMBOLIZER_H_
#define VTCTX_READER_SYMBOLIZER_H_

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "target/procMaps.h"
#include "target/symbolTable.h"

namespace vtctx::reader {

// One named frame: its name, and the module it lies in (a file path, "[jit]" for a JVM's code
// cache or another anonymous executable mapping, "[kernel.kallsyms]", or "" when unknown).
struct Frame {
  std::string name;
  std::string module;
  uint64_t address = 0;  // the address looked up (a return address minus one)
};

class Symbolizer {
 public:
  // Snapshots the maps of `pid` now, read under its /proc directory `proc_dir` (a held process's:
  // targetProcess.h). Call it while the process runs (JIT code and dlopen'ed libraries seen during
  // sampling must still be mapped). Anonymous code is named from `jit` (jitCodeNames.h) when
  // given, else from perf-<pid>.map in the process's /tmp if present.
  Symbolizer(pid_t pid, std::string proc_dir, const SymbolTable* jit = nullptr);
  bool has_maps() const { return !files_.empty(); }

  // `return_address`: the address is a return address (every frame but the innermost), so the
  // call instruction is looked up (address - 1).
  Frame UserFrame(uint64_t address, bool return_address);
  Frame KernelFrame(uint64_t address);
  std::string User(uint64_t address, bool return_address) {
    return UserFrame(address, return_address).name;
  }
  std::string Kernel(uint64_t address) { return KernelFrame(address).name; }

 private:
  const SymbolTable& FileSymbols(const MappedFile& file);
  uint64_t FileBias(const MappedFile& file);

  pid_t pid_;
  std::string proc_dir_;
  std::vector<MappedFile> files_;
  std::vector<Mapping> anonymous_;
  std::map<std::string, std::unique_ptr<SymbolTable>> file_symbols_;  // by path
  std::map<std::string, uint64_t> file_bias_;
  const SymbolTable* jit_;
  std::unique_ptr<SymbolTable> perf_map_;
  std::unique_ptr<SymbolTable> kallsyms_;
};

}  // namespace vtctx::reader

#endif  // VTCTX_READER_SYMBOLIZER_H_
