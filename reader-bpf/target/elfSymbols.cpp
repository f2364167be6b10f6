#include "target/elfSymbols.h"

#include <gelf.h>
#include <libelf.h>

#include <algorithm>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "target/elfFile.h"

namespace vtctx::reader {
namespace {

absl::Status ReadProgramHeaders(Elf* elf, ElfTlsExport& out) {
  size_t phnum = 0;
  if (elf_getphdrnum(elf, &phnum) != 0) return ElfError("program headers");
  for (size_t i = 0; i < phnum; ++i) {
    GElf_Phdr ph;
    if (gelf_getphdr(elf, static_cast<int>(i), &ph) == nullptr) return ElfError("program header");
    if (ph.p_type == PT_LOAD) {
      out.loads.push_back({ph.p_vaddr, ph.p_offset, ph.p_filesz, ph.p_memsz});
    } else if (ph.p_type == PT_TLS) {
      if (out.tls.has_value()) return absl::InvalidArgumentError("more than one PT_TLS segment");
      out.tls = TlsSegment{ph.p_vaddr, ph.p_filesz, ph.p_memsz, ph.p_align};
    }
  }
  return absl::OkStatus();
}

// Looks `name` up in the .dynsym section `dynsym`. Linear scan: run once per mapped file.
absl::Status FindDynamicSymbol(Elf* elf, Elf_Scn* dynsym, absl::string_view name,
                               ElfTlsExport& out) {
  GElf_Shdr sh;
  if (gelf_getshdr(dynsym, &sh) == nullptr) return ElfError(".dynsym header");
  if (sh.sh_entsize == 0) return absl::InvalidArgumentError(".dynsym has entry size 0");
  absl::StatusOr<Elf_Data*> data = SectionData(dynsym, kMaxElfTableBytes, ".dynsym");
  if (!data.ok()) return data.status();
  if (absl::Status s = CheckedStringTable(elf, sh.sh_link, kMaxElfTableBytes); !s.ok()) return s;
  const size_t count = (*data)->d_size / gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
  for (size_t i = 1; i < count; ++i) {  // entry 0 is the reserved null symbol
    GElf_Sym sym;
    if (gelf_getsym(*data, static_cast<int>(i), &sym) == nullptr) {
      return ElfError(".dynsym entry");
    }
    if (sym.st_name == 0 || sym.st_shndx == SHN_UNDEF) continue;
    const char* sym_name = elf_strptr(elf, sh.sh_link, sym.st_name);
    if (sym_name == nullptr || name != sym_name) continue;
    out.symbol = TlsSymbol{sym.st_value,
                           sym.st_size,
                           static_cast<uint32_t>(i),
                           static_cast<uint8_t>(GELF_ST_TYPE(sym.st_info)),
                           static_cast<uint8_t>(GELF_ST_BIND(sym.st_info)),
                           static_cast<uint8_t>(GELF_ST_VISIBILITY(sym.st_other))};
    return absl::OkStatus();
  }
  return absl::OkStatus();
}

// Collects the relocations (REL or RELA) against .dynsym that name symbol `index`.
absl::Status CollectRelocs(Elf* elf, size_t dynsym_ndx, uint32_t index, ElfTlsExport& out) {
  Elf_Scn* scn = nullptr;
  while ((scn = elf_nextscn(elf, scn)) != nullptr) {
    GElf_Shdr sh;
    if (gelf_getshdr(scn, &sh) == nullptr) return ElfError("section header");
    if ((sh.sh_type != SHT_RELA && sh.sh_type != SHT_REL) || sh.sh_link != dynsym_ndx) continue;
    absl::StatusOr<Elf_Data*> section = SectionData(scn, kMaxElfTableBytes, "a relocation section");
    if (!section.ok()) return section.status();
    Elf_Data* data = *section;
    const bool rela = sh.sh_type == SHT_RELA;
    const size_t entsize = gelf_fsize(elf, rela ? ELF_T_RELA : ELF_T_REL, 1, EV_CURRENT);
    if (entsize == 0) return absl::InvalidArgumentError("relocation entry size 0");
    const size_t count = data->d_size / entsize;
    for (size_t i = 0; i < count; ++i) {
      SymbolReloc r;
      uint64_t info = 0;
      if (rela) {
        GElf_Rela rel;
        if (gelf_getrela(data, static_cast<int>(i), &rel) == nullptr) return ElfError("rela");
        r.offset = rel.r_offset;
        r.addend = rel.r_addend;
        info = rel.r_info;
      } else {
        // REL keeps its addend in the relocated word; before relocation that is the file's
        // content, which the resolver never needs on the architectures we support (RELA only).
        GElf_Rel rel;
        if (gelf_getrel(data, static_cast<int>(i), &rel) == nullptr) return ElfError("rel");
        r.offset = rel.r_offset;
        info = rel.r_info;
      }
      if (GELF_R_SYM(info) != index) continue;
      r.type = static_cast<uint32_t>(GELF_R_TYPE(info));
      out.relocs.push_back(r);
    }
  }
  return absl::OkStatus();
}

// The .dynsym section, or null when the file exports nothing.
absl::StatusOr<Elf_Scn*> DynamicSymbols(Elf* elf) {
  // The OTEP requires section headers (readers locate .dynsym and the relocations through them).
  Elf_Scn* scn = nullptr;
  while ((scn = elf_nextscn(elf, scn)) != nullptr) {
    GElf_Shdr sh;
    if (gelf_getshdr(scn, &sh) == nullptr) return ElfError("section header");
    if (sh.sh_type == SHT_DYNSYM) return scn;
  }
  return nullptr;
}

absl::Status CheckHeader(Elf* elf, ElfTlsExport& out) {
  if (elf_kind(elf) != ELF_K_ELF) return absl::InvalidArgumentError("not an ELF object");
  if (gelf_getclass(elf) != ELFCLASS64) return absl::InvalidArgumentError("not a 64-bit ELF");
  GElf_Ehdr eh;
  if (gelf_getehdr(elf, &eh) == nullptr) return ElfError("ELF header");
  out.machine = eh.e_machine;
  out.elf_type = eh.e_type;
  return ReadProgramHeaders(elf, out);
}

absl::StatusOr<ElfTlsExport> Parse(Elf* elf, absl::string_view symbol_name) {
  ElfTlsExport out;
  if (absl::Status s = CheckHeader(elf, out); !s.ok()) return s;
  absl::StatusOr<Elf_Scn*> found = DynamicSymbols(elf);
  if (!found.ok()) return found.status();
  Elf_Scn* dynsym = *found;
  if (dynsym == nullptr) return out;  // nothing exported at all
  if (absl::Status s = FindDynamicSymbol(elf, dynsym, symbol_name, out); !s.ok()) return s;
  if (!out.symbol.has_value()) return out;
  if (absl::Status s = CollectRelocs(elf, elf_ndxscn(dynsym), out.symbol->dynsym_index, out);
      !s.ok()) {
    return s;
  }
  return out;
}

absl::StatusOr<ElfDynamicSymbols> ParseSymbols(Elf* elf, std::span<const absl::string_view> names) {
  ElfTlsExport header;
  if (absl::Status s = CheckHeader(elf, header); !s.ok()) return s;
  ElfDynamicSymbols out;
  out.loads = std::move(header.loads);
  absl::StatusOr<Elf_Scn*> dynsym = DynamicSymbols(elf);
  if (!dynsym.ok()) return dynsym.status();
  if (*dynsym == nullptr) return out;
  GElf_Shdr sh;
  if (gelf_getshdr(*dynsym, &sh) == nullptr) return ElfError(".dynsym header");
  absl::StatusOr<Elf_Data*> section = SectionData(*dynsym, kMaxElfTableBytes, ".dynsym");
  if (!section.ok()) return section.status();
  Elf_Data* data = *section;
  if (absl::Status s = CheckedStringTable(elf, sh.sh_link, kMaxElfTableBytes); !s.ok()) return s;
  const size_t count = data->d_size / gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
  for (size_t i = 1; i < count && out.values.size() < names.size(); ++i) {
    GElf_Sym sym;
    if (gelf_getsym(data, static_cast<int>(i), &sym) == nullptr) return ElfError(".dynsym entry");
    if (sym.st_name == 0 || sym.st_shndx == SHN_UNDEF) continue;
    const char* sym_name = elf_strptr(elf, sh.sh_link, sym.st_name);
    if (sym_name == nullptr) continue;
    if (std::find(names.begin(), names.end(), sym_name) != names.end()) {
      out.values.emplace(sym_name, sym.st_value);
    }
  }
  return out;
}

absl::StatusOr<ElfUnwindTables> ParseUnwindTables(Elf* elf) {
  ElfTlsExport header;
  if (absl::Status s = CheckHeader(elf, header); !s.ok()) return s;
  ElfUnwindTables out;
  out.loads = std::move(header.loads);
  size_t names = 0;
  if (elf_getshdrstrndx(elf, &names) != 0) return ElfError("section names");
  if (absl::Status s = CheckedStringTable(elf, names, kMaxElfTableBytes); !s.ok()) return s;
  Elf_Scn* scn = nullptr;
  while ((scn = elf_nextscn(elf, scn)) != nullptr) {
    GElf_Shdr sh;
    if (gelf_getshdr(scn, &sh) == nullptr) return ElfError("section header");
    const char* name = elf_strptr(elf, names, sh.sh_name);
    if (sh.sh_type != SHT_PROGBITS || name == nullptr || std::strcmp(name, ".eh_frame") != 0) {
      continue;
    }
    absl::StatusOr<Elf_Data*> section = SectionData(scn, kMaxEhFrameBytes, ".eh_frame");
    if (!section.ok()) return section.status();
    Elf_Data* data = *section;
    if (data->d_buf == nullptr || data->d_size != sh.sh_size) return ElfError(".eh_frame data");
    const uint8_t* bytes = static_cast<const uint8_t*>(data->d_buf);
    out.eh_frame_vaddr = sh.sh_addr;
    out.eh_frame.assign(bytes, bytes + data->d_size);
    break;
  }
  return out;
}

absl::StatusOr<ElfInternals> ParseInternals(Elf* elf, std::span<const absl::string_view> names,
                                            uint32_t dtpmod_type) {
  ElfTlsExport header;
  if (absl::Status s = CheckHeader(elf, header); !s.ok()) return s;
  ElfInternals out;
  out.loads = std::move(header.loads);
  out.tls = header.tls;
  // Which .dynsym entries the module defines (a DTPMOD relocation against one is its own id).
  std::vector<bool> defined;
  size_t dynsym_ndx = 0;
  Elf_Scn* scn = nullptr;
  while ((scn = elf_nextscn(elf, scn)) != nullptr) {
    GElf_Shdr sh;
    if (gelf_getshdr(scn, &sh) == nullptr) return ElfError("section header");
    if (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) continue;
    absl::StatusOr<Elf_Data*> section = SectionData(scn, kMaxElfTableBytes, "a symbol table");
    if (!section.ok()) return section.status();
    Elf_Data* data = *section;
    if (sh.sh_type == SHT_SYMTAB) {
      if (absl::Status s = CheckedStringTable(elf, sh.sh_link, kMaxElfTableBytes); !s.ok()) {
        return s;
      }
    }
    const size_t count = data->d_size / gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
    if (sh.sh_type == SHT_DYNSYM) {
      dynsym_ndx = elf_ndxscn(scn);
      defined.assign(count, false);
    }
    for (size_t i = 1; i < count; ++i) {
      GElf_Sym sym;
      if (gelf_getsym(data, static_cast<int>(i), &sym) == nullptr) return ElfError("symbol");
      if (sym.st_shndx == SHN_UNDEF) continue;
      if (sh.sh_type == SHT_DYNSYM) {
        defined[i] = true;
        continue;
      }
      if (sym.st_name == 0 || out.symbols.size() == names.size()) continue;
      const char* sym_name = elf_strptr(elf, sh.sh_link, sym.st_name);
      if (sym_name != nullptr && std::find(names.begin(), names.end(), sym_name) != names.end()) {
        out.symbols.emplace(sym_name,
                            ElfInternalSymbol{sym.st_value, sym.st_size,
                                              static_cast<uint8_t>(GELF_ST_TYPE(sym.st_info))});
      }
    }
  }
  scn = nullptr;
  while (dynsym_ndx != 0 && !out.own_module_id_got && (scn = elf_nextscn(elf, scn)) != nullptr) {
    GElf_Shdr sh;
    if (gelf_getshdr(scn, &sh) == nullptr) return ElfError("section header");
    if (sh.sh_type != SHT_RELA || sh.sh_link != dynsym_ndx) continue;
    absl::StatusOr<Elf_Data*> section = SectionData(scn, kMaxElfTableBytes, "a relocation section");
    if (!section.ok()) return section.status();
    Elf_Data* data = *section;
    const size_t count = data->d_size / gelf_fsize(elf, ELF_T_RELA, 1, EV_CURRENT);
    for (size_t i = 0; i < count; ++i) {
      GElf_Rela rel;
      if (gelf_getrela(data, static_cast<int>(i), &rel) == nullptr) return ElfError("rela");
      const uint64_t sym = GELF_R_SYM(rel.r_info);
      if (GELF_R_TYPE(rel.r_info) == dtpmod_type &&
          (sym == 0 || (sym < defined.size() && defined[sym]))) {
        out.own_module_id_got = rel.r_offset;
        break;
      }
    }
  }
  return out;
}

// `parse` on the ELF image in memory.
template <typename ParseElf>
auto ParseImage(std::span<const uint8_t> image, ParseElf parse) -> decltype(parse(nullptr)) {
  absl::StatusOr<ElfHandle> handle = OpenElfImage(image);
  if (!handle.ok()) return handle.status();
  return parse(handle->get());
}

// `parse` on the ELF file at `path` (elfFile.h: read by pread, bounded); its errors name the file.
template <typename ParseElf>
auto ParseFile(const std::string& path, ParseElf parse) -> decltype(parse(nullptr)) {
  absl::StatusOr<ElfHandle> handle = OpenElfFile(path);
  if (!handle.ok()) return handle.status();
  auto result = parse(handle->get());
  if (!result.ok()) {
    return absl::Status(result.status().code(),
                        absl::StrCat(path, ": ", result.status().message()));
  }
  return result;
}

}  // namespace

absl::StatusOr<ElfTlsExport> ReadTlsExportFromMemory(std::span<const uint8_t> image,
                                                     absl::string_view symbol_name) {
  return ParseImage(image, [&](Elf* elf) { return Parse(elf, symbol_name); });
}

absl::StatusOr<ElfTlsExport> ReadTlsExportFromFile(const std::string& path,
                                                   absl::string_view symbol_name) {
  return ParseFile(path, [&](Elf* elf) { return Parse(elf, symbol_name); });
}

absl::StatusOr<ElfDynamicSymbols> ReadDynamicSymbolsFromMemory(
    std::span<const uint8_t> image, std::span<const absl::string_view> names) {
  return ParseImage(image, [&](Elf* elf) { return ParseSymbols(elf, names); });
}

absl::StatusOr<ElfDynamicSymbols> ReadDynamicSymbolsFromFile(
    const std::string& path, std::span<const absl::string_view> names) {
  return ParseFile(path, [&](Elf* elf) { return ParseSymbols(elf, names); });
}

absl::StatusOr<ElfUnwindTables> ReadUnwindTablesFromFile(const std::string& path) {
  return ParseFile(path, ParseUnwindTables);
}

absl::StatusOr<ElfInternals> ReadInternalsFromMemory(std::span<const uint8_t> image,
                                                     std::span<const absl::string_view> names,
                                                     uint32_t dtpmod_type) {
  return ParseImage(image, [&](Elf* elf) { return ParseInternals(elf, names, dtpmod_type); });
}

absl::StatusOr<ElfInternals> ReadInternalsFromFile(const std::string& path,
                                                   std::span<const absl::string_view> names,
                                                   uint32_t dtpmod_type) {
  return ParseFile(path, [&](Elf* elf) { return ParseInternals(elf, names, dtpmod_type); });
}

}  // namespace vtctx::reader
