// Address -> frame name for `profile --format folded`: user addresses through the process's
// mapped ELF files (.symtab, else .dynsym) or, for anonymous (JIT) memory, /tmp/perf-<pid>.map;
// kernel addresses through /proc/kallsyms (suffixed "_[k]", as perf's folded output does).
#ifndef VTCTX_READER_SYMBOLIZER_H_
#define VTCTX_READER_SYMBOLIZER_H_

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "procMaps.h"

namespace vtctx::reader {

struct SymbolRange {
  uint64_t start = 0;
  uint64_t size = 0;  // 0: unknown size (extends to the next symbol)
  std::string name;
};

// Sorted ranges; Find returns nullptr when no symbol covers `address`.
class SymbolTable {
 public:
  void Add(uint64_t start, uint64_t size, std::string name);
  void Finish();  // sorts; call once after the last Add
  const SymbolRange* Find(uint64_t address) const;
  bool empty() const { return ranges_.empty(); }

 private:
  std::vector<SymbolRange> ranges_;
};

// Parses perf map text ("START SIZE name" per line, hex without 0x).
SymbolTable ParsePerfMap(absl::string_view text);

class Symbolizer {
 public:
  // Snapshots the maps of `pid` now, read under its /proc directory `proc_dir` (a held process's:
  // targetProcess.h). Call it while the process runs (JIT code and dlopen'ed libraries seen during
  // sampling must still be mapped); false if the maps were unreadable.
  Symbolizer(pid_t pid, std::string proc_dir);
  bool has_maps() const { return !files_.empty(); }

  // `return_address`: the address is a return address (every frame but the innermost), so the
  // call instruction is looked up (address - 1).
  std::string User(uint64_t address, bool return_address);
  std::string Kernel(uint64_t address);

 private:
  const SymbolTable& FileSymbols(const MappedFile& file);

  pid_t pid_;
  std::string proc_dir_;
  std::vector<MappedFile> files_;
  std::vector<Mapping> anonymous_;
  std::map<std::string, std::unique_ptr<SymbolTable>> file_symbols_;  // by path
  std::map<std::string, uint64_t> file_bias_;
  std::unique_ptr<SymbolTable> perf_map_;
  std::unique_ptr<SymbolTable> kallsyms_;
};

}  // namespace vtctx::reader

#endif  // VTCTX_READER_SYMBOLIZER_H_
