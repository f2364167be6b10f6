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
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/string_view.h"
#include "hotspot/jvmCode.h"
#include "hotspot/userStackUnwind.h"
#include "target/elfFunctionSymbols.h"
#include "target/procMaps.h"
#include "target/symbolTable.h"
#include "target/targetProcess.h"

namespace vtctx::reader {

// The longest frame name shown (bytes; longer names are cut at a character and end in "...").
inline constexpr size_t kMaxFrameNameBytes = 1024;
// The symbol tables of a run's mapped files, together (elfFunctionSymbols.h bounds each); files
// past it are named lib.so+0xoffset.
inline constexpr size_t kMaxSymbolBytes = 32u << 20;
// Demangled names kept for reuse, together; past it names are shown as in the symbol table.
inline constexpr size_t kMaxShownNameBytes = 16u << 20;

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
  // A mapped file's symbols and the names shown for them, per file (device and inode): a file
  // mapped many times is read once.
  struct FileNames {
    bool tried = false;
    std::unique_ptr<FunctionSymbols> symbols;       // null: none, or refused by the bound
    std::map<uint64_t, std::string> shown;          // by symbol start: the name as shown
    std::optional<std::vector<LoadSegment>> loads;  // its PT_LOAD segments, once read
  };
  using FileId = std::tuple<uint32_t, uint32_t, uint64_t>;
  const FunctionSymbols* FileSymbols(const MappedFile& file, FileNames*& names);
  std::string FunctionName(FileNames& names, const FunctionSymbols::Symbol& symbol);
  uint64_t FileBias(const MappedFile& file);

  const TargetProcess& target_;
  std::vector<MappedFile> files_;
  std::map<uint64_t, std::pair<uint64_t, size_t>> file_ranges_;  // start -> (end, file)
  std::map<uint64_t, Mapping> anonymous_;                        // by start
  std::map<FileId, FileNames> file_names_;
  std::map<uint64_t, uint64_t> file_bias_;  // by the start of a loaded instance
  size_t symbol_bytes_ = 0;                 // symbol tables held, at most kMaxSymbolBytes
  size_t shown_bytes_ = 0;                  // names kept for reuse, at most kMaxShownNameBytes
  const SymbolTable* jit_;
  JvmCode* code_;
  std::unique_ptr<SymbolTable> perf_map_;
  std::unique_ptr<SymbolTable> kallsyms_;

 public:
  // Interpreted frames named by their Method*, and those whose slots did not lead to a method
  // (labelled kInterpreted).
  uint64_t interpreted_named = 0;
  uint64_t interpreted_refused = 0;
  // Files whose symbols were not read because the run's bound was reached.
  uint64_t symbols_refused = 0;
};

}  // namespace vtctx::reader

#endif  // VTCTX_READER_SYMBOLIZER_H_
