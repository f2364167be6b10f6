#include "hotspot/vmStructs.h"

#include <array>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"

namespace vtctx::reader {
namespace {

constexpr size_t kMaxEntries = 20'000;  // HotSpot 25 has ~600 fields, ~1,000 types
constexpr size_t kMaxNameBytes = 256;   // longer names are not HotSpot's
constexpr uint64_t kMaxStride = 256;    // an entry is 6 words today

constexpr std::array<absl::string_view, 19> kSymbols = {
    "gHotSpotVMStructs",
    "gHotSpotVMStructEntryArrayStride",
    "gHotSpotVMStructEntryTypeNameOffset",
    "gHotSpotVMStructEntryFieldNameOffset",
    "gHotSpotVMStructEntryIsStaticOffset",
    "gHotSpotVMStructEntryOffsetOffset",
    "gHotSpotVMStructEntryAddressOffset",
    "gHotSpotVMTypes",
    "gHotSpotVMTypeEntryArrayStride",
    "gHotSpotVMTypeEntryTypeNameOffset",
    "gHotSpotVMTypeEntrySizeOffset",
    "gHotSpotVMIntConstants",
    "gHotSpotVMIntConstantEntryArrayStride",
    "gHotSpotVMIntConstantEntryNameOffset",
    "gHotSpotVMIntConstantEntryValueOffset",
    "gHotSpotVMLongConstants",
    "gHotSpotVMLongConstantEntryArrayStride",
    "gHotSpotVMLongConstantEntryNameOffset",
    "gHotSpotVMLongConstantEntryValueOffset",
};

absl::StatusOr<std::string> ReadName(MemoryReader& memory, uint64_t address) {
  return memory.ReadCString(address, kMaxNameBytes);
}

// The layout of one table: where its array is and where each entry keeps what we read.
struct Table {
  uint64_t array = 0;
  uint64_t stride = 0;
  std::vector<uint64_t> offsets;  // per column, inside an entry
};

absl::StatusOr<Table> ReadLayout(MemoryReader& memory,
                                 const std::map<std::string, uint64_t>& symbols,
                                 absl::string_view array, absl::string_view stride,
                                 std::initializer_list<absl::string_view> columns) {
  auto value_at = [&](absl::string_view name) -> absl::StatusOr<uint64_t> {
    auto it = symbols.find(std::string(name));
    if (it == symbols.end()) {
      return absl::InvalidArgumentError(absl::StrCat("libjvm.so does not export ", name));
    }
    absl::StatusOr<uint64_t> v = memory.ReadU64(it->second);
    if (!v.ok())
      return absl::InvalidArgumentError(absl::StrCat("reading ", name, ": ", v.status().message()));
    return v;
  };
  Table t;
  absl::StatusOr<uint64_t> a = value_at(array);
  absl::StatusOr<uint64_t> s = value_at(stride);
  if (!a.ok()) return a.status();
  if (!s.ok()) return s.status();
  t.array = *a;
  t.stride = *s;
  if (t.array == 0 || t.stride == 0 || t.stride > kMaxStride || t.stride % 4 != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(array, ": implausible table (entry stride ", t.stride, ")"));
  }
  for (absl::string_view column : columns) {
    absl::StatusOr<uint64_t> o = value_at(column);
    if (!o.ok()) return o.status();
    if (*o + 8 > t.stride) {
      return absl::InvalidArgumentError(absl::StrCat(column, " lies outside its entry"));
    }
    t.offsets.push_back(*o);
  }
  return t;
}

// Calls `row(entry bytes)` for each entry until the first with a null name (column 0), which
// ends every HotSpot table.
template <typename Row>
absl::Status ForEachEntry(MemoryReader& memory, const Table& t, absl::string_view what, Row row) {
  std::vector<uint8_t> entry(t.stride);
  for (size_t i = 0; i < kMaxEntries; ++i) {
    if (absl::Status s = memory.Read(t.array + i * t.stride, entry.data(), entry.size()); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(what, " entry ", i, ": ", s.message()));
    }
    uint64_t name = 0;
    std::memcpy(&name, entry.data() + t.offsets[0], 8);
    if (name == 0) return absl::OkStatus();
    if (absl::Status s = row(entry.data(), name); !s.ok()) return s;
  }
  return absl::InvalidArgumentError(absl::StrCat(what, " has more than ", kMaxEntries, " entries"));
}

uint64_t Word(const uint8_t* entry, uint64_t offset) {
  uint64_t v = 0;
  std::memcpy(&v, entry + offset, 8);
  return v;
}

// The fields of a VMStructEntry table (columns: type name, field name, is static, offset,
// address). A field already known keeps its first entry.
template <typename Fields>
absl::Status ReadFields(MemoryReader& memory, const Table& table, absl::string_view what,
                        Fields& fields) {
  return ForEachEntry(
      memory, table, what, [&](const uint8_t* e, uint64_t type_name) -> absl::Status {
        absl::StatusOr<std::string> type = ReadName(memory, type_name);
        if (!type.ok()) return type.status();
        const uint64_t field_name = Word(e, table.offsets[1]);
        if (field_name == 0) return absl::OkStatus();  // a type without fields of its own
        absl::StatusOr<std::string> field = ReadName(memory, field_name);
        if (!field.ok()) return field.status();
        int32_t is_static = 0;
        std::memcpy(&is_static, e + table.offsets[2], sizeof is_static);
        fields.emplace(
            std::make_pair(*std::move(type), *std::move(field)),
            typename Fields::mapped_type{
                is_static != 0, Word(e, is_static != 0 ? table.offsets[4] : table.offsets[3])});
        return absl::OkStatus();
      });
}

}  // namespace

std::span<const absl::string_view> VmStructsSymbolNames() { return kSymbols; }

absl::StatusOr<VmStructs> VmStructs::Read(MemoryReader& memory,
                                          const std::map<std::string, uint64_t>& symbols) {
  VmStructs out;
  absl::StatusOr<Table> structs =
      ReadLayout(memory, symbols, "gHotSpotVMStructs", "gHotSpotVMStructEntryArrayStride",
                 {"gHotSpotVMStructEntryTypeNameOffset", "gHotSpotVMStructEntryFieldNameOffset",
                  "gHotSpotVMStructEntryIsStaticOffset", "gHotSpotVMStructEntryOffsetOffset",
                  "gHotSpotVMStructEntryAddressOffset"});
  if (!structs.ok()) return structs.status();
  absl::Status s = ReadFields(memory, *structs, "gHotSpotVMStructs", out.fields_);
  if (!s.ok()) return s;
  // JVMCI's table has the same entries; its fields fill in what gHotSpotVMStructs lacks.
  if (auto jvmci = symbols.find(std::string(kJvmciStructsSymbol)); jvmci != symbols.end()) {
    Table table = *structs;
    table.array = jvmci->second;  // the array itself, not a pointer to it
    if (s = ReadFields(memory, table, "JVMCIVMStructs", out.fields_); !s.ok()) return s;
  }

  absl::StatusOr<Table> types =
      ReadLayout(memory, symbols, "gHotSpotVMTypes", "gHotSpotVMTypeEntryArrayStride",
                 {"gHotSpotVMTypeEntryTypeNameOffset", "gHotSpotVMTypeEntrySizeOffset"});
  if (!types.ok()) return types.status();
  s = ForEachEntry(memory, *types, "gHotSpotVMTypes",
                   [&](const uint8_t* e, uint64_t type_name) -> absl::Status {
                     absl::StatusOr<std::string> type = ReadName(memory, type_name);
                     if (!type.ok()) return type.status();
                     out.type_sizes_.emplace(*std::move(type), Word(e, types->offsets[1]));
                     return absl::OkStatus();
                   });
  if (!s.ok()) return s;

  struct Constants {
    const char* array;
    const char* stride;
    const char* name;
    const char* value;
    bool is_long;
  };
  for (const Constants& c :
       {Constants{"gHotSpotVMIntConstants", "gHotSpotVMIntConstantEntryArrayStride",
                  "gHotSpotVMIntConstantEntryNameOffset", "gHotSpotVMIntConstantEntryValueOffset",
                  false},
        Constants{"gHotSpotVMLongConstants", "gHotSpotVMLongConstantEntryArrayStride",
                  "gHotSpotVMLongConstantEntryNameOffset", "gHotSpotVMLongConstantEntryValueOffset",
                  true}}) {
    if (symbols.count(c.value) == 0) continue;  // not among the symbols asked for: optional
    absl::StatusOr<Table> table = ReadLayout(memory, symbols, c.array, c.stride, {c.name, c.value});
    if (!table.ok()) return table.status();
    s = ForEachEntry(memory, *table, c.array, [&](const uint8_t* e, uint64_t name) -> absl::Status {
      absl::StatusOr<std::string> text = ReadName(memory, name);
      if (!text.ok()) return text.status();
      int64_t value = 0;
      if (c.is_long) {
        std::memcpy(&value, e + table->offsets[1], 8);
      } else {
        int32_t v32 = 0;
        std::memcpy(&v32, e + table->offsets[1], 4);
        value = v32;
      }
      out.constants_.emplace(*std::move(text), value);
      return absl::OkStatus();
    });
    if (!s.ok()) return s;
  }
  return out;
}

std::optional<uint64_t> VmStructs::Offset(absl::string_view type, absl::string_view field) const {
  auto it = fields_.find(std::make_pair(std::string(type), std::string(field)));
  if (it == fields_.end() || it->second.is_static) return std::nullopt;
  return it->second.value;
}

std::optional<uint64_t> VmStructs::Address(absl::string_view type, absl::string_view field) const {
  auto it = fields_.find(std::make_pair(std::string(type), std::string(field)));
  if (it == fields_.end() || !it->second.is_static || it->second.value == 0) return std::nullopt;
  return it->second.value;
}

std::optional<uint64_t> VmStructs::TypeSize(absl::string_view type) const {
  auto it = type_sizes_.find(type);
  if (it == type_sizes_.end()) return std::nullopt;
  return it->second;
}

std::optional<int64_t> VmStructs::Constant(absl::string_view name) const {
  auto it = constants_.find(name);
  if (it == constants_.end()) return std::nullopt;
  return it->second;
}

absl::Status VmStructs::Find(std::initializer_list<VmName> rows) const {
  for (const VmName& row : rows) {
    std::optional<uint64_t> value;
    switch (row.kind) {
      case VmName::Kind::kOffset:
        value = Offset(row.type, row.field);
        break;
      case VmName::Kind::kAddress:
        value = Address(row.type, row.field);
        break;
      case VmName::Kind::kSize:
        value = TypeSize(row.type);
        if (value == 0) value.reset();
        break;
    }
    if (!value) {
      return absl::FailedPreconditionError(absl::StrCat(
          "HotSpot's VMStructs do not name ", row.kind == VmName::Kind::kSize
                                                  ? absl::StrCat("sizeof(", row.type, ")")
                                                  : absl::StrCat(row.type, "::", row.field)));
    }
    *row.out = *value;
  }
  return absl::OkStatus();
}

}  // namespace vtctx::reader
