#include "hotspot/jvmFacts.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "target/elfSymbols.h"

namespace vtctx::reader {
namespace {

constexpr uint64_t kMaxFlags = 8192;     // HotSpot 25 has ~1,400
constexpr size_t kMaxStringBytes = 128;  // a release string or a flag name

absl::StatusOr<std::string> ReadString(MemoryReader& memory, uint64_t address) {
  return memory.ReadCString(address, kMaxStringBytes);
}

}  // namespace

absl::StatusOr<VmStructs> OpenVmStructs(const std::string& proc_dir,
                                        const std::vector<Mapping>& maps, MemoryReader& memory) {
  for (const MappedFile& file : GroupMappedFiles(maps)) {
    if (!absl::EndsWith(file.path, "/libjvm.so")) continue;
    const Mapping& first = file.mappings.front();
    absl::StatusOr<ElfDynamicSymbols> elf = ReadDynamicSymbolsFromFile(
        absl::StrFormat("%s/map_files/%x-%x", proc_dir, first.start, first.end),
        VmStructsSymbolNames());
    if (!elf.ok()) return elf.status();
    const std::optional<uint64_t> bias = LoadBias(file, elf->loads);
    if (!bias) return absl::InvalidArgumentError("libjvm.so: no mapping holds its first segment");
    std::map<std::string, uint64_t> symbols;
    for (const auto& [name, value] : elf->values) symbols[name] = *bias + value;
    // JVMCI's table, from the full symbol table when the file has one (stripped: absent).
    const absl::string_view jvmci[] = {kJvmciStructsSymbol};
    absl::StatusOr<ElfInternals> internals = ReadInternalsFromFile(
        absl::StrFormat("%s/map_files/%x-%x", proc_dir, first.start, first.end), jvmci, 0);
    if (internals.ok()) {
      if (auto it = internals->symbols.find(std::string(kJvmciStructsSymbol));
          it != internals->symbols.end()) {
        symbols[it->first] = *bias + it->second.value;
      }
    }
    return VmStructs::Read(memory, symbols);
  }
  return absl::NotFoundError("no libjvm.so mapped");
}

absl::StatusOr<JvmFacts> ReadJvmFacts(MemoryReader& memory, const VmStructs& vm,
                                      std::span<const absl::string_view> bool_flags) {
  JvmFacts facts;
  if (std::optional<uint64_t> at = vm.Address("Abstract_VM_Version", "_s_vm_release")) {
    absl::StatusOr<uint64_t> text = memory.ReadU64(*at);
    if (text.ok() && *text != 0) {
      absl::StatusOr<std::string> release = ReadString(memory, *text);
      if (release.ok()) facts.release = *release;
    }
  }
  if (std::optional<uint64_t> at = vm.Address("Abstract_VM_Version", "_vm_major_version")) {
    int32_t major = 0;
    if (memory.Read(*at, &major, sizeof major).ok() && major > 0 && major < 1000) {
      facts.major = major;
    }
  }
  if (bool_flags.empty()) return facts;
  const std::optional<uint64_t> table = vm.Address("JVMFlag", "flags");
  const std::optional<uint64_t> count_at = vm.Address("JVMFlag", "numFlags");
  const std::optional<uint64_t> name_offset = vm.Offset("JVMFlag", "_name");
  const std::optional<uint64_t> addr_offset = vm.Offset("JVMFlag", "_addr");
  const std::optional<uint64_t> size = vm.TypeSize("JVMFlag");
  if (!table || !count_at || !name_offset || !addr_offset || !size || *size < 16 || *size > 256 ||
      *name_offset + 8 > *size || *addr_offset + 8 > *size) {
    return absl::InvalidArgumentError("HotSpot's tables do not describe JVMFlag");
  }
  absl::StatusOr<uint64_t> array = memory.ReadU64(*table);
  absl::StatusOr<uint64_t> count = memory.ReadU64(*count_at);
  if (!array.ok()) return array.status();
  if (!count.ok()) return count.status();
  if (*count > kMaxFlags) {
    return absl::InvalidArgumentError(absl::StrCat("JVMFlag::numFlags is ", *count));
  }
  std::vector<uint8_t> entry(*size);
  for (uint64_t i = 0; i < *count && facts.flags.size() < bool_flags.size(); ++i) {
    if (absl::Status s = memory.Read(*array + i * *size, entry.data(), entry.size()); !s.ok()) {
      return s;
    }
    uint64_t name = 0, addr = 0;
    std::memcpy(&name, entry.data() + *name_offset, 8);
    std::memcpy(&addr, entry.data() + *addr_offset, 8);
    if (name == 0 || addr == 0) continue;  // the table's last entry has neither
    absl::StatusOr<std::string> text = ReadString(memory, name);
    if (!text.ok()) return text.status();
    if (std::find(bool_flags.begin(), bool_flags.end(), *text) == bool_flags.end()) continue;
    uint8_t value = 0;
    if (absl::Status s = memory.Read(addr, &value, 1); !s.ok()) return s;
    facts.flags[*text] = value != 0;
  }
  return facts;
}

}  // namespace vtctx::reader
