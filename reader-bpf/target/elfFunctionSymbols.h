// Function symbols of an ELF file, for naming stack frames: .symtab if present (not stripped), else
// .dynsym. The file is the target's to shape, so the table is compact and bounded: one entry
// (24 bytes) per function symbol, and the file's string table kept whole (at most
// kMaxFrameNameTableBytes): names are never copied per symbol (20,000 symbols sharing one 64 KiB
// name cost 64 KiB, not 1.3 GB) nor demangled here (that happens only for a name a sample hits,
// output/demangledName.h).
#ifndef VTCTX_READER_ELF_FUNCTION_SYMBOLS_H_
#define VTCTX_READER_ELF_FUNCTION_SYMBOLS_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace vtctx::reader {

// The symbol table (.symtab, .dynsym) and its string table, each at most this large (libjvm.so
// of Temurin 25: 1.7 MB and 3.3 MB).
inline constexpr uint64_t kMaxFrameSymbolTableBytes = 8u << 20;
inline constexpr uint64_t kMaxFrameNameTableBytes = 8u << 20;
// A name longer than this is given cut (no C++ name a frame needs is longer).
inline constexpr size_t kMaxSymbolNameBytes = 4096;

class FunctionSymbols {
 public:
  struct Symbol {
    uint64_t start = 0;
    uint64_t size = 0;       // 0: unknown (extends to the next symbol)
    absl::string_view name;  // at most kMaxSymbolNameBytes; valid while the table lives
    bool cut = false;        // the name goes on past kMaxSymbolNameBytes
  };

  // The function covering link-time address `address`, if any.
  std::optional<Symbol> Find(uint64_t address) const;
  size_t size() const { return entries_.size(); }
  // Memory the table holds.
  size_t bytes() const { return entries_.capacity() * sizeof(Entry) + names_.capacity(); }

 private:
  friend struct FunctionSymbolsParser;
  struct Entry {
    uint64_t start;
    uint64_t size;
    uint32_t name;  // offset in names_
  };
  std::vector<Entry> entries_;  // sorted by start
  std::string names_;           // the string table
};

// Reads the function symbols of the ELF file at `path` (elfFile.h: pread, bounded) or of an image.
absl::StatusOr<FunctionSymbols> ReadFunctionSymbolsFromFile(const std::string& path);
absl::StatusOr<FunctionSymbols> ReadFunctionSymbolsFromMemory(std::span<const uint8_t> image);

}  // namespace vtctx::reader

#endif  // VTCTX_READER_ELF_FUNCTION_SYMBOLS_H_
