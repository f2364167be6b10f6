// Reads what TLS resolution needs from one ELF file: the exported TLS symbol in .dynsym, the
// dynamic relocations that name it, the PT_TLS segment and the PT_LOAD segments.
//
// Pure parsing, no process access: the same code runs on mapped files of a live process, on test
// fixtures and under the fuzzer. Every malformed input yields an error Status, never a crash.
#ifndef VTCTX_READER_ELF_SYMBOLS_H_
#define VTCTX_READER_ELF_SYMBOLS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace vtctx::reader {

struct LoadSegment {
  uint64_t vaddr = 0;
  uint64_t offset = 0;  // file offset
  uint64_t filesz = 0;
  uint64_t memsz = 0;
};

// The module's TLS initialisation image (PT_TLS).
struct TlsSegment {
  uint64_t vaddr = 0;
  uint64_t filesz = 0;
  uint64_t memsz = 0;
  uint64_t align = 0;
};

struct TlsSymbol {
  uint64_t value = 0;  // STT_TLS: offset inside the module's TLS block
  uint64_t size = 0;
  uint32_t dynsym_index = 0;
  uint8_t type = 0;  // STT_*
  uint8_t bind = 0;  // STB_*
  uint8_t visibility = 0;
};

// A dynamic relocation whose symbol is the exported TLS variable.
struct SymbolReloc {
  uint64_t offset = 0;  // r_offset: link-time address of the word the dynamic linker writes
  uint32_t type = 0;    // machine-specific R_* number
  int64_t addend = 0;
};

struct ElfTlsExport {
  uint16_t machine = 0;   // e_machine
  uint16_t elf_type = 0;  // ET_EXEC or ET_DYN
  std::vector<LoadSegment> loads;
  std::optional<TlsSegment> tls;
  // Set when .dynsym DEFINES the symbol (an undefined reference does not count).
  std::optional<TlsSymbol> symbol;
  std::vector<SymbolReloc> relocs;  // only filled when `symbol` is set
};

// Parses an ELF image held in memory.
absl::StatusOr<ElfTlsExport> ReadTlsExportFromMemory(std::span<const uint8_t> image,
                                                     absl::string_view symbol_name);

// Parses the ELF file at `path`, a regular file, read by pread with every section bounded
// (elfFile.h; map_files links are followed: they are the kernel's).
absl::StatusOr<ElfTlsExport> ReadTlsExportFromFile(const std::string& path,
                                                   absl::string_view symbol_name);

// The values (st_value) of data or function symbols a module exports.
struct ElfDynamicSymbols {
  std::vector<LoadSegment> loads;
  std::map<std::string, uint64_t> values;  // the wanted names that .dynsym defines
};
absl::StatusOr<ElfDynamicSymbols> ReadDynamicSymbolsFromMemory(
    std::span<const uint8_t> image, std::span<const absl::string_view> names);
absl::StatusOr<ElfDynamicSymbols> ReadDynamicSymbolsFromFile(
    const std::string& path, std::span<const absl::string_view> names);

// What a module says about its own internals, for HotSpot's (hotspot/javaThreadLayout.h): symbols
// of its full symbol table (.symtab: by name, whatever their binding; a stripped file has none)
// and a GOT word the dynamic linker fills with the module's own TLS module id (a relocation of
// type `dtpmod_type` against symbol 0, or against a TLS symbol the module defines).
struct ElfInternalSymbol {
  uint64_t value = 0;  // st_value (for STT_TLS: the offset inside the module's TLS block)
  uint64_t size = 0;
  uint8_t type = 0;  // STT_*
};
struct ElfInternals {
  std::vector<LoadSegment> loads;
  std::optional<TlsSegment> tls;
  std::map<std::string, ElfInternalSymbol> symbols;  // the wanted names .symtab defines
  std::optional<uint64_t> own_module_id_got;         // r_offset
};
// A module's call-frame information for unwinding its native frames (cfiTable.h): its .eh_frame
// section's bytes (absent: none; at most elfFile.h's kMaxEhFrameBytes) and where it is linked, with
// the load segments that give the module's load bias.
struct ElfUnwindTables {
  std::vector<LoadSegment> loads;
  uint64_t eh_frame_vaddr = 0;
  std::vector<uint8_t> eh_frame;
};
absl::StatusOr<ElfUnwindTables> ReadUnwindTablesFromFile(const std::string& path);

absl::StatusOr<ElfInternals> ReadInternalsFromMemory(std::span<const uint8_t> image,
                                                     std::span<const absl::string_view> names,
                                                     uint32_t dtpmod_type);
absl::StatusOr<ElfInternals> ReadInternalsFromFile(const std::string& path,
                                                   std::span<const absl::string_view> names,
                                                   uint32_t dtpmod_type);

}  // namespace vtctx::reader

#endif  // VTCTX_READER_ELF_SYMBOLS_H_
