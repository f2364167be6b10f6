#include "output/symbolizer.h"

#include <cxxabi.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "target/elfSymbols.h"

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

std::string ReadWholeFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::string BaseName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Function symbols of an ELF file: .symtab if present (not stripped), else .dynsym.
void LoadElfFunctions(const std::string& path, SymbolTable& table) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
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

Symbolizer::Symbolizer(pid_t pid, std::string proc_dir, const SymbolTable* jit)
    : pid_(pid), proc_dir_(std::move(proc_dir)), jit_(jit) {
  absl::StatusOr<std::vector<Mapping>> maps = ReadMapsIn(proc_dir_);
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
    LoadElfFunctions(absl::StrCat(proc_dir_, "/root", file.path), *slot);
    if (slot->empty()) LoadElfFunctions(file.path, *slot);  // the process may be gone by now
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
    perf_map_ = std::make_unique<SymbolTable>(
        ParsePerfMap(ReadWholeFile(absl::StrCat(proc_dir_, "/root/tmp/perf-", pid_, ".map"))));
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

uint64_t Symbolizer::FileBias(const MappedFile& file) {
  const std::string key = file.path + "@" + std::to_string(file.mappings.front().start);
  auto bias = file_bias_.find(key);
  if (bias != file_bias_.end()) return bias->second;
  absl::StatusOr<ElfTlsExport> elf =
      ReadTlsExportFromFile(absl::StrCat(proc_dir_, "/root", file.path), "");
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
