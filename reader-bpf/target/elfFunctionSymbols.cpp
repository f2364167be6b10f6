#include "target/elfFunctionSymbols.h"

#include <gelf.h>
#include <libelf.h>

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "target/elfFile.h"

namespace vtctx::reader {

struct FunctionSymbolsParser {
  // The function symbols of the symbol table `scn` (linked to its string table), or an empty
  // table when it holds none.
  static absl::StatusOr<FunctionSymbols> FromSection(Elf* elf, Elf_Scn* scn) {
    FunctionSymbols out;
    GElf_Shdr sh;
    if (gelf_getshdr(scn, &sh) == nullptr) return ElfError("symbol table header");
    absl::StatusOr<Elf_Data*> data =
        SectionData(scn, kMaxFrameSymbolTableBytes, "the symbol table");
    if (!data.ok()) return data.status();
    Elf_Scn* strings = elf_getscn(elf, sh.sh_link);
    if (strings == nullptr) return ElfError("the symbol table's string table");
    GElf_Shdr strings_sh;
    if (gelf_getshdr(strings, &strings_sh) == nullptr || strings_sh.sh_type != SHT_STRTAB) {
      return absl::InvalidArgumentError("the symbol table's string table is not one");
    }
    absl::StatusOr<Elf_Data*> names =
        SectionData(strings, kMaxFrameNameTableBytes, "the symbol names");
    if (!names.ok()) return names.status();
    const size_t count = (*data)->d_size / gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
    const size_t names_size = (*names)->d_buf != nullptr ? (*names)->d_size : 0;
    for (size_t i = 1; i < count; ++i) {
      GElf_Sym sym;
      if (gelf_getsym(*data, static_cast<int>(i), &sym) == nullptr) break;
      if (GELF_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_shndx == SHN_UNDEF) continue;
      if (sym.st_name == 0 || sym.st_name >= names_size) continue;
      out.entries_.push_back({sym.st_value, sym.st_size, static_cast<uint32_t>(sym.st_name)});
    }
    if (out.entries_.empty()) return out;
    out.names_.assign(static_cast<const char*>((*names)->d_buf), names_size);
    std::stable_sort(out.entries_.begin(), out.entries_.end(),
                     [](const FunctionSymbols::Entry& a, const FunctionSymbols::Entry& b) {
                       return a.start < b.start;
                     });
    out.entries_.shrink_to_fit();
    return out;
  }

  static absl::StatusOr<FunctionSymbols> Parse(Elf* elf) {
    if (elf_kind(elf) != ELF_K_ELF) return absl::InvalidArgumentError("not an ELF object");
    for (Elf64_Word wanted : {SHT_SYMTAB, SHT_DYNSYM}) {
      Elf_Scn* scn = nullptr;
      while ((scn = elf_nextscn(elf, scn)) != nullptr) {
        GElf_Shdr sh;
        if (gelf_getshdr(scn, &sh) == nullptr) return ElfError("section header");
        if (sh.sh_type != wanted || sh.sh_entsize == 0) continue;
        absl::StatusOr<FunctionSymbols> table = FromSection(elf, scn);
        if (!table.ok() || table->size() > 0) return table;
      }
    }
    return FunctionSymbols();
  }
};

std::optional<FunctionSymbols::Symbol> FunctionSymbols::Find(uint64_t address) const {
  auto it = std::upper_bound(entries_.begin(), entries_.end(), address,
                             [](uint64_t a, const Entry& e) { return a < e.start; });
  if (it == entries_.begin()) return std::nullopt;
  --it;
  if (it->size != 0 && address - it->start >= it->size) return std::nullopt;
  // The name runs to its NUL (or the table's end): read at most kMaxSymbolNameBytes of it.
  const size_t room = names_.size() - it->name;
  const size_t scan = std::min(room, kMaxSymbolNameBytes + 1);
  const char* begin = names_.data() + it->name;
  const void* nul = std::memchr(begin, '\0', scan);
  const bool cut = nul == nullptr && room > kMaxSymbolNameBytes;
  const size_t length = nul != nullptr ? static_cast<size_t>(static_cast<const char*>(nul) - begin)
                                       : std::min(room, kMaxSymbolNameBytes);
  Symbol out{it->start, it->size, absl::string_view(begin, length), cut};
  if (out.name.empty()) return std::nullopt;
  return out;
}

absl::StatusOr<FunctionSymbols> ReadFunctionSymbolsFromFile(const std::string& path) {
  absl::StatusOr<ElfHandle> handle = OpenElfFile(path);
  if (!handle.ok()) return handle.status();
  absl::StatusOr<FunctionSymbols> table = FunctionSymbolsParser::Parse(handle->get());
  if (!table.ok()) {
    return absl::Status(table.status().code(), absl::StrCat(path, ": ", table.status().message()));
  }
  return table;
}

absl::StatusOr<FunctionSymbols> ReadFunctionSymbolsFromMemory(std::span<const uint8_t> image) {
  absl::StatusOr<ElfHandle> handle = OpenElfImage(image);
  if (!handle.ok()) return handle.status();
  return FunctionSymbolsParser::Parse(handle->get());
}

}  // namespace vtctx::reader
