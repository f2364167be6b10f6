#include "output/symbolizer.h"

#include <cxxabi.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
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
#include "target/boundedFile.h"
#include "target/elfSymbols.h"
#include "target/targetView.h"

namespace vtctx::reader {
namespace {

std::string Demangle(const char* name) {
  int status = 0;
  char* demangled = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  if (status != 0 || demangled == nullptr) return name;
  std::string out(demangled);
  std::free(demangled);
  return out;
}

// Folded stacks separate frames with ';' and the count with the last space.
std::string FoldSafe(std::string name) {
  std::replace(name.begin(), name.end(), ';', ':');
  std::replace(name.begin(), name.end(), '\n', ' ');
  return name;
}

constexpr size_t kMaxPerfMapBytes = 256u << 20;  // a million JIT blobs with long names

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

std::string BaseName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Function symbols of an ELF file: .symtab if present (not stripped), else .dynsym.
void LoadElfFunctions(const std::string& path, SymbolTable& table) {
  // A regular file only: never a device or FIFO a hostile process mapped under a library's name.
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return;
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return;
  }
  elf_version(EV_CURRENT);
  Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
  if (elf == nullptr) {
    close(fd);
    return;
  }
  for (Elf64_Word wanted : {SHT_SYMTAB, SHT_DYNSYM}) {
    Elf_Scn* scn = nullptr;
    while ((scn = elf_nextscn(elf, scn)) != nullptr) {
      GElf_Shdr sh;
      if (gelf_getshdr(scn, &sh) == nullptr || sh.sh_type != wanted || sh.sh_entsize == 0) continue;
      Elf_Data* data = elf_getdata(scn, nullptr);
      if (data == nullptr) continue;
      const size_t count = data->d_size / sh.sh_entsize;
      for (size_t i = 0; i < count; ++i) {
        GElf_Sym sym;
        if (gelf_getsym(data, static_cast<int>(i), &sym) == nullptr) continue;
        if (GELF_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_shndx == SHN_UNDEF) continue;
        const char* name = elf_strptr(elf, sh.sh_link, sym.st_name);
        if (name == nullptr || *name == '\0') continue;
        table.Add(sym.st_value, sym.st_size, Demangle(name));
      }
    }
    if (!table.empty()) break;
  }
  elf_end(elf);
  close(fd);
}

}  // namespace

Symbolizer::Symbolizer(const TargetProcess& target, const SymbolTable* jit, JvmCode* code)
    : target_(target), jit_(jit), code_(code) {
  absl::StatusOr<std::vector<Mapping>> maps = ReadMapsIn(target_.dir());
  if (!maps.ok()) return;
  files_ = GroupMappedFiles(*maps);
  for (const Mapping& m : *maps) {
    if (!m.IsFile()) anonymous_.push_back(m);
  }
}

const SymbolTable& Symbolizer::FileSymbols(const MappedFile& file) {
  auto& slot = file_symbols_[file.path];
  if (!slot) {
    slot = std::make_unique<SymbolTable>();
    LoadElfFunctions(MappedFileLink(target_.dir(), file), *slot);
    slot->Finish();
  }
  return *slot;
}

Frame Symbolizer::UserFrame(uint64_t address, bool return_address) {
  const uint64_t lookup = return_address && address > 0 ? address - 1 : address;
  for (const MappedFile& file : files_) {
    for (const Mapping& m : file.mappings) {
      if (lookup < m.start || lookup >= m.end) continue;
      const uint64_t load_bias = FileBias(file);
      if (const SymbolRange* sym = FileSymbols(file).Find(lookup - load_bias)) {
        return {FoldSafe(sym->name), file.path, lookup};
      }
      return {FoldSafe(absl::StrFormat("%s+0x%x", BaseName(file.path), lookup - load_bias)),
              file.path, lookup};
    }
  }
  if (jit_ == nullptr && !perf_map_) {
    // Another runtime's perf map, in the process's own /tmp (its mount namespace), named by the
    // pid the reader sees (a process in another pid namespace names it by its own pid there).
    perf_map_ = std::make_unique<SymbolTable>(ParsePerfMap(ReadPerfMap(target_)));
  }
  const SymbolTable& names = jit_ != nullptr ? *jit_ : *perf_map_;
  if (const SymbolRange* sym = names.Find(lookup)) return {FoldSafe(sym->name), "[jit]", lookup};
  for (const Mapping& m : anonymous_) {
    if (lookup >= m.start && lookup < m.end) {
      if (m.executable && (m.path.empty() || m.path[0] != '['))
        return {kUnknownJit, "[jit]", lookup};
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
  const SymbolRange* code = jit_->Find(outer.address);
  if (code == nullptr || code->name == kUnknownJit || code->name == kInterpreted) return {outer};
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
  const std::string key = file.path + "@" + std::to_string(file.mappings.front().start);
  auto bias = file_bias_.find(key);
  if (bias != file_bias_.end()) return bias->second;
  absl::StatusOr<ElfTlsExport> elf = ReadTlsExportFromFile(MappedFileLink(target_.dir(), file), "");
  const uint64_t load_bias = elf.ok() ? LoadBias(file, elf->loads).value_or(0) : 0;
  file_bias_[key] = load_bias;
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
      kallsyms_->Add(start, 0, std::string(f[2]));
    }
    kallsyms_->Finish();
  }
  if (const SymbolRange* sym = kallsyms_->Find(address)) {
    return {FoldSafe(sym->name + "_[k]"), "[kernel.kallsyms]", address};
  }
  return {"[kernel]", "[kernel.kallsyms]", address};
}

}  // namespace vtctx::reader
