// HotSpot's own description of its data structures, read from a live JVM's memory: the tables
// libjvm.so exports for the Serviceability Agent (gHotSpotVMStructs: fields with their offsets or
// addresses; gHotSpotVMTypes: type sizes; gHotSpotVMIntConstants / gHotSpotVMLongConstants),
// which async-profiler and the OpenTelemetry eBPF profiler read too.
//
// Everything is looked up by name and nothing is guessed: a field the tables do not name is
// absent (nullopt), and the caller refuses what it needs and cannot find. The tables come from a
// process the reader does not trust: every count and string is bounded, every read checked.
#ifndef VTCTX_READER_VM_STRUCTS_H_
#define VTCTX_READER_VM_STRUCTS_H_

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "target/processMemory.h"

namespace vtctx::reader {

// The names of the exported symbols that locate the tables (libjvm.so's .dynsym).
std::span<const absl::string_view> VmStructsSymbolNames();

// JVMCI's own table of the same entries (libjvm.so's .symtab only: the array itself), which names
// some fields gHotSpotVMStructs does not (JavaThread::_jni_environment). Optional.
inline constexpr absl::string_view kJvmciStructsSymbol =
    "_ZN14JVMCIVMStructs21localHotSpotVMStructsE";

// One name a HotSpot reader needs from the tables, and where its value goes: the rows of a
// reader's table of names, looked up together by VmStructs::Find.
// (The readers' rows: hotspotNames.h.)
struct VmName {
  enum class Kind { kOffset, kAddress, kSize };
  Kind kind;
  absl::string_view type;
  absl::string_view field;  // "" for kSize
  uint64_t* out;
};

class VmStructs {
 public:
  // Reads the tables through `memory`; `symbols` maps each of VmStructsSymbolNames() (and, if
  // found, kJvmciStructsSymbol) to its run-time address (st_value plus the load bias).
  // InvalidArgument when a symbol is missing or a table is malformed (unterminated, too large,
  // unreadable strings). A field both tables name has gHotSpotVMStructs' entry.
  static absl::StatusOr<VmStructs> Read(MemoryReader& memory,
                                        const std::map<std::string, uint64_t>& symbols);

  // Offset of a non-static field; address of a static field; size of a type.
  std::optional<uint64_t> Offset(absl::string_view type, absl::string_view field) const;
  std::optional<uint64_t> Address(absl::string_view type, absl::string_view field) const;
  std::optional<uint64_t> TypeSize(absl::string_view type) const;
  std::optional<int64_t> Constant(absl::string_view name) const;
  // Fills every row's `out`; FailedPrecondition naming the first row the tables lack ("HotSpot's
  // VMStructs do not name CodeHeap::_memory"): the outputs are then unusable. Sizes must be
  // non-zero.
  absl::Status Find(std::initializer_list<VmName> rows) const;

  size_t field_count() const { return fields_.size(); }

 private:
  struct Field {
    bool is_static = false;
    uint64_t value = 0;  // offset, or address when static
  };
  std::map<std::pair<std::string, std::string>, Field, std::less<>> fields_;
  std::map<std::string, uint64_t, std::less<>> type_sizes_;
  std::map<std::string, int64_t, std::less<>> constants_;
};

}  // namespace vtctx::reader

#endif  // VTCTX_READER_VM_STRUCTS_H_
