#include "output/symbolizer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "hotspot/jvmProcess.h"
#include "output/demangledName.h"
#include "target/boundedFile.h"
#include "target/elfFunctionSymbols.h"
#include "target/elfSymbols.h"
#include "target/targetView.h"
#include "target/untrustedText.h"

namespace vtctx::reader {
namespace {

// A frame's name as every stack format shows it (folded, SVG, pprof): the target's text through
// untrustedText.h (control characters and invalid UTF-8 as '_'), at most kMaxFrameNameBytes (cut
// at a character), and no ';' (folded stacks separate frames with it; the count follows the last
// space).
std::string FoldSafe(absl::string_view name) {
  std::string out = SafeName(name, kMaxFrameNameBytes);
  std::replace(out.begin(), out.end(), ';', ':');
  return out;
}

// The perf map a JIT of `target` wrote into its /tmp, read in its view as its user ("" if none).
std::string ReadPerfMap(const TargetProcess& target) {
  absl::StatusOr<std::string> status = ReadKernelFile(target.dir() + "/status", 64 << 10);
  absl::StatusOr<ProcStatus> ids = status.ok() ? ParseProcStatus(*status) : status.status();
  if (!ids.ok()) return "";
  absl::StatusOr<TargetView> view = TargetView::Open(target, ids->euid, ids->egid);
  if (!view.ok()) return "";
  const std::string path = absl::StrCat("/tmp/perf-", ids->nspid, ".map");
  absl::StatusOr<std::string> text =
      view->Run("reading the process's perf map", 10, kMaxPerfMapBytes,
                [&](ViewSession&) { return ReadRegularFile(AT_FDCWD, path, kMaxPerfMapBytes); });
  return text.ok() ? *text : "";
}

// A module (a file's path, from the target's maps) as a frame's module: what pprof names its
// mapping by.
std::string ModuleName(absl::string_view path) { return SafeName(path, 4096); }

std::string BaseName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

Symbolizer::Symbolizer(const TargetProcess& target, const SymbolTable* jit, JvmCode* code)
    : target_(target), jit_(jit), code_(code) {
  absl::StatusOr<std::vector<Mapping>> maps = ReadMapsIn(target_.dir());
  if (!maps.ok()) return;
  files_ = GroupMappedFiles(*maps);
  for (size_t i = 0; i < files_.size(); ++i) {
    for (const Mapping& m : files_[i].mappings) file_ranges_[m.start] = {m.end, i};
  }
  for (const Mapping& m : *maps) {
    if (!m.IsFile()) anonymous_[m.start] = m;
  }
}

const FunctionSymbols* Symbolizer::FileSymbols(const MappedFile& file, FileNames*& names) {
  names = &file_names_[{file.dev_major, file.dev_minor, file.inode}];
  if (!names->tried) {
    names->tried = true;
    // One table per file, however many times it is mapped; at most kMaxSymbolBytes in all.
    absl::StatusOr<FunctionSymbols> table =
        symbol_bytes_ < kMaxSymbolBytes
            ? ReadFunctionSymbolsFromFile(MappedFileLink(target_.dir(), file))
            : absl::ResourceExhaustedError("");
    if (table.ok() && symbol_bytes_ + table->bytes() <= kMaxSymbolBytes) {
      symbol_bytes_ += table->bytes();
      names->symbols = std::make_unique<FunctionSymbols>(*std::move(table));
    } else if (table.ok() || absl::IsResourceExhausted(table.status())) {
      symbols_refused++;
    }
  }
  return names->symbols.get();
}

std::string Symbolizer::FunctionName(FileNames& names, const FunctionSymbols::Symbol& symbol) {
  auto cached = names.shown.find(symbol.start);
  if (cached != names.shown.end()) return cached->second;
  // Demangled only now that a sample hit it, within the frame name's bound; beyond
  // kMaxShownNameBytes of names, the mangled one (already bounded) is shown.
  std::optional<std::string> demangled;
  if (!symbol.cut && shown_bytes_ < kMaxShownNameBytes) {
    demangled = DemangleBounded(symbol.name, kMaxFrameNameBytes - 3);
  }
  std::string name = FoldSafe(demangled ? absl::string_view(*demangled) : symbol.name);
  if (shown_bytes_ < kMaxShownNameBytes) {
    shown_bytes_ += name.size() + 64;  // with the map node
    names.shown.emplace(symbol.start, name);
  }
  return name;
}

Frame Symbolizer::UserFrame(uint64_t address, bool return_address) {
  const uint64_t lookup = return_address && address > 0 ? address - 1 : address;
  if (auto it = file_ranges_.upper_bound(lookup); it != file_ranges_.begin()) {
    --it;
    if (lookup < it->second.first) {
      const MappedFile& file = files_[it->second.second];
      const uint64_t load_bias = FileBias(file);
      FileNames* names = nullptr;
      if (const FunctionSymbols* symbols = FileSymbols(file, names)) {
        if (const std::optional<FunctionSymbols::Symbol> sym = symbols->Find(lookup - load_bias)) {
          return {FunctionName(*names, *sym), ModuleName(file.path), lookup};
        }
      }
      return {FoldSafe(absl::StrFormat("%s+0x%x", BaseName(file.path), lookup - load_bias)),
              ModuleName(file.path), lookup};
    }
  }
  if (jit_ == nullptr && !perf_map_) {
    // Another runtime's perf map, in the process's own /tmp (its mount namespace), named by the
    // pid the reader sees (a process in another pid namespace names it by its own pid there).
    perf_map_ = std::make_unique<SymbolTable>(ParsePerfMap(ReadPerfMap(target_)));
  }
  const SymbolTable& names = jit_ != nullptr ? *jit_ : *perf_map_;
  if (const std::optional<SymbolRange> sym = names.Find(lookup)) {
    return {FoldSafe(sym->name), "[jit]", lookup};
  }
  if (auto it = anonymous_.upper_bound(lookup); it != anonymous_.begin()) {
    --it;
    const Mapping& m = it->second;
    if (lookup < m.end) {
      if (m.executable && (m.path.empty() || m.path[0] != '[')) {
        return {kUnknownJit, "[jit]", lookup};
      }
      return {m.path.empty() ? "[anon]" : FoldSafe(m.path), "", lookup};
    }
  }
  return {"[unknown]", "", lookup};
}

std::vector<Frame> Symbolizer::UserFrames(uint64_t address, bool return_address,
                                          const InterpretedSlots& interpreted) {
  Frame outer = UserFrame(address, return_address);
  if (interpreted.method != 0 && outer.name == kInterpreted) {
    // Counted per aggregated stack, not per sample: what share of the names were refused.
    absl::StatusOr<std::string> name =
        code_ != nullptr && code_->methods() != nullptr
            ? code_->methods()->InterpretedName(interpreted.method, interpreted.bcp)
            : absl::StatusOr<std::string>(absl::UnavailableError(""));
    if (!name.ok()) {
      interpreted_refused++;
      return {outer};
    }
    interpreted_named++;
    return {{FoldSafe(*std::move(name)), outer.module, outer.address}};
  }
  NmethodScopes* inlined = code_ != nullptr ? code_->inlined() : nullptr;
  if (inlined == nullptr || jit_ == nullptr || outer.module != "[jit]") return {outer};
  const std::optional<SymbolRange> code = jit_->Find(outer.address);
  if (!code || code->name == kUnknownJit || code->name == kInterpreted) return {outer};
  std::optional<std::vector<std::string>> methods =
      inlined->MethodsAt(code->start, code->name, address, return_address);
  if (!methods || methods->size() < 2) return {outer};
  std::vector<Frame> frames;
  for (size_t i = 0; i < methods->size(); ++i) {
    frames.push_back({FoldSafe((*methods)[i]), outer.module, outer.address,
                      /*inlined=*/i + 1 < methods->size()});
  }
  return frames;
}

uint64_t Symbolizer::FileBias(const MappedFile& file) {
  const uint64_t start = file.mappings.front().start;
  auto bias = file_bias_.find(start);
  if (bias != file_bias_.end()) return bias->second;
  // The load segments, read once per file (however many times it is mapped; no symbol scan).
  FileNames& names = file_names_[{file.dev_major, file.dev_minor, file.inode}];
  if (!names.loads) {
    absl::StatusOr<ElfDynamicSymbols> elf =
        ReadDynamicSymbolsFromFile(MappedFileLink(target_.dir(), file), {});
    names.loads = elf.ok() ? std::move(elf->loads) : std::vector<LoadSegment>();
  }
  const uint64_t load_bias = LoadBias(file, *names.loads).value_or(0);
  file_bias_[start] = load_bias;
  return load_bias;
}

Frame Symbolizer::KernelFrame(uint64_t address) {
  if (!kallsyms_) {
    kallsyms_ = std::make_unique<SymbolTable>();
    std::ifstream in("/proc/kallsyms");
    std::string line;
    while (std::getline(in, line)) {
      std::vector<absl::string_view> f =
          absl::StrSplit(line, absl::ByAnyChar(" \t"), absl::SkipEmpty());
      uint64_t start = 0;
      if (f.size() < 3 || !absl::SimpleHexAtoi(f[0], &start) || start == 0) continue;
      const char type = f[1].empty() ? ' ' : f[1][0];
      if (type != 't' && type != 'T' && type != 'w' && type != 'W') continue;
      kallsyms_->Add(start, 0, f[2]);
    }
    kallsyms_->Finish();
  }
  if (const std::optional<SymbolRange> sym = kallsyms_->Find(address)) {
    return {FoldSafe(absl::StrCat(sym->name, "_[k]")), "[kernel.kallsyms]", address};
  }
  return {"[kernel]", "[kernel.kallsyms]", address};
}

}  // namespace vtctx::reader
