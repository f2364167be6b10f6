// HotSpot's tables read from memory (vmStructs.h, jvmFacts.h), laid out in a fake memory as
// libjvm.so lays them out: by name only, bounded, malformed tables refused.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "fakeMemory.h"
#include "hotspot/jvmFacts.h"
#include "hotspot/vmStructs.h"

namespace vtctx::reader {
namespace {

// A fake libjvm: strings, the three tables and the symbols that locate them.
class FakeJvm {
 public:
  FakeJvm() {
    // Real memory is mapped by pages: strings are read a page at a time.
    const std::vector<uint8_t> zeros(kEnd - kStart, 0);
    memory.Put(kStart, zeros.data(), zeros.size());
    // HotSpot's layout: VMStructEntry {typeName, fieldName, typeString, int32 isStatic, uint64
    // offset, void* address} (stride 48); VMTypeEntry {typeName, superclassName, int32 isOop,
    // isInteger, isUnsigned, uint64 size} (40); constants {name, value} (16).
    Symbol("gHotSpotVMStructEntryArrayStride", 48);
    Symbol("gHotSpotVMStructEntryTypeNameOffset", 0);
    Symbol("gHotSpotVMStructEntryFieldNameOffset", 8);
    Symbol("gHotSpotVMStructEntryIsStaticOffset", 24);
    Symbol("gHotSpotVMStructEntryOffsetOffset", 32);
    Symbol("gHotSpotVMStructEntryAddressOffset", 40);
    Symbol("gHotSpotVMTypeEntryArrayStride", 40);
    Symbol("gHotSpotVMTypeEntryTypeNameOffset", 0);
    Symbol("gHotSpotVMTypeEntrySizeOffset", 32);
    Symbol("gHotSpotVMIntConstantEntryArrayStride", 16);
    Symbol("gHotSpotVMIntConstantEntryNameOffset", 0);
    Symbol("gHotSpotVMIntConstantEntryValueOffset", 8);
    Symbol("gHotSpotVMLongConstantEntryArrayStride", 16);
    Symbol("gHotSpotVMLongConstantEntryNameOffset", 0);
    Symbol("gHotSpotVMLongConstantEntryValueOffset", 8);
  }

  uint64_t String(const std::string& s) {
    const uint64_t at = next_;
    memory.Put(at, s.c_str(), s.size() + 1);
    next_ += (s.size() + 16) & ~uint64_t{7};
    return at;
  }
  void Symbol(const std::string& name, uint64_t value) {
    const uint64_t at = next_;
    next_ += 8;
    memory.PutU64(at, value);
    symbols[name] = at;
  }
  void Field(const std::string& type, const std::string& field, bool is_static, uint64_t value) {
    fields_.push_back({String(type), String(field), is_static, value});
  }
  void Type(const std::string& type, uint64_t size) { types_.push_back({String(type), size}); }
  void IntConstant(const std::string& name, int32_t value) {
    ints_.push_back({String(name), static_cast<uint64_t>(static_cast<uint32_t>(value))});
  }

  // Writes the tables (each ended by an entry with a null name) and their symbols.
  void Finish() {
    const uint64_t structs = Table(fields_.size(), 48, [&](uint64_t e, size_t i) {
      memory.PutU64(e, fields_[i].type);
      memory.PutU64(e + 8, fields_[i].field);
      const int32_t is_static = fields_[i].is_static ? 1 : 0;
      memory.Put(e + 24, &is_static, 4);
      memory.PutU64(e + (fields_[i].is_static ? 40 : 32), fields_[i].value);
    });
    Symbol("gHotSpotVMStructs", structs);
    Symbol("gHotSpotVMTypes", Table(types_.size(), 40, [&](uint64_t e, size_t i) {
             memory.PutU64(e, types_[i].first);
             memory.PutU64(e + 32, types_[i].second);
           }));
    Symbol("gHotSpotVMIntConstants", Table(ints_.size(), 16, [&](uint64_t e, size_t i) {
             memory.PutU64(e, ints_[i].first);
             memory.PutU64(e + 8, ints_[i].second);
           }));
    Symbol("gHotSpotVMLongConstants", Table(0, 16, [](uint64_t, size_t) {}));
  }

  FakeMemory memory;
  std::map<std::string, uint64_t> symbols;

 private:
  struct F {
    uint64_t type, field;
    bool is_static;
    uint64_t value;
  };
  template <typename Fill>
  uint64_t Table(size_t n, uint64_t stride, Fill fill) {
    const uint64_t at = next_;
    std::vector<uint8_t> zero(stride * (n + 1), 0);
    memory.Put(at, zero.data(), zero.size());
    for (size_t i = 0; i < n; ++i) fill(at + i * stride, i);
    next_ += zero.size();
    return at;
  }
  static constexpr uint64_t kStart = 0x10000;
  static constexpr uint64_t kEnd = 0x20000;
  uint64_t next_ = kStart;
  std::vector<F> fields_;
  std::vector<std::pair<uint64_t, uint64_t>> types_;
  std::vector<std::pair<uint64_t, uint64_t>> ints_;
};

TEST(VmStructs, ReadsFieldsTypesAndConstantsByName) {
  FakeJvm jvm;
  jvm.Field("JavaThread", "_monitor_owner_id", false, 1312);
  jvm.Field("JVMFlag", "numFlags", true, 0x9000);
  jvm.Type("JavaThread", 1800);
  jvm.IntConstant("JVMFlag::TYPE_bool", 0);
  jvm.IntConstant("oopSize", 8);
  jvm.Finish();
  absl::StatusOr<VmStructs> vm = VmStructs::Read(jvm.memory, jvm.symbols);
  ASSERT_TRUE(vm.ok()) << vm.status();
  EXPECT_EQ(vm->Offset("JavaThread", "_monitor_owner_id"), 1312u);
  EXPECT_EQ(vm->Address("JVMFlag", "numFlags"), 0x9000u);
  // A static field has no offset and a non-static one no address: never mixed up.
  EXPECT_EQ(vm->Offset("JVMFlag", "numFlags"), std::nullopt);
  EXPECT_EQ(vm->Address("JavaThread", "_monitor_owner_id"), std::nullopt);
  EXPECT_EQ(vm->Offset("JavaThread", "_vthread"), std::nullopt);  // absent: never guessed
  EXPECT_EQ(vm->TypeSize("JavaThread"), 1800u);
  EXPECT_EQ(vm->TypeSize("Thread"), std::nullopt);
  EXPECT_EQ(vm->Constant("oopSize"), 8);
  EXPECT_EQ(vm->field_count(), 2u);
  // A reader's table of names (hotspotNames.h): every row filled, or the first one the tables
  // lack named; a static field is not an offset, a type of size 0 not a size.
  using K = VmName::Kind;
  uint64_t owner = 0, flags = 0, size = 0, other = 0;
  ASSERT_TRUE(vm->Find({{K::kOffset, "JavaThread", "_monitor_owner_id", &owner},
                        {K::kAddress, "JVMFlag", "numFlags", &flags},
                        {K::kSize, "JavaThread", "", &size}})
                  .ok());
  EXPECT_EQ(owner, 1312u);
  EXPECT_EQ(flags, 0x9000u);
  EXPECT_EQ(size, 1800u);
  const absl::Status missing = vm->Find({{K::kOffset, "JavaThread", "_monitor_owner_id", &other},
                                         {K::kOffset, "JavaThread", "_vthread", &other}});
  EXPECT_EQ(missing.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(missing.message(), "HotSpot's VMStructs do not name JavaThread::_vthread");
  EXPECT_FALSE(vm->Find({{K::kOffset, "JVMFlag", "numFlags", &other}}).ok());
  EXPECT_EQ(vm->Find({{K::kSize, "Thread", "", &other}}).message(),
            "HotSpot's VMStructs do not name sizeof(Thread)");
}

TEST(VmStructs, RefusesMissingSymbolsAndMalformedTables) {
  {
    FakeJvm jvm;
    jvm.Finish();
    jvm.symbols.erase("gHotSpotVMStructEntryOffsetOffset");
    absl::StatusOr<VmStructs> vm = VmStructs::Read(jvm.memory, jvm.symbols);
    ASSERT_FALSE(vm.ok());
    EXPECT_NE(vm.status().message().find("gHotSpotVMStructEntryOffsetOffset"), std::string::npos);
  }
  {
    FakeJvm jvm;
    jvm.Finish();
    jvm.memory.PutU64(jvm.symbols["gHotSpotVMStructEntryArrayStride"], 1 << 20);  // implausible
    EXPECT_FALSE(VmStructs::Read(jvm.memory, jvm.symbols).ok());
  }
  {
    FakeJvm jvm;
    jvm.Finish();
    jvm.memory.PutU64(jvm.symbols["gHotSpotVMStructEntryAddressOffset"], 44);  // past the entry
    EXPECT_FALSE(VmStructs::Read(jvm.memory, jvm.symbols).ok());
  }
  {
    // A name without its NUL within the bound.
    FakeJvm jvm;
    jvm.Field(std::string(300, 'x'), "f", false, 1);
    jvm.Finish();
    EXPECT_FALSE(VmStructs::Read(jvm.memory, jvm.symbols).ok());
  }
  {
    // A table whose end lies in unreadable memory.
    FakeJvm jvm;
    jvm.Finish();
    jvm.memory.PutU64(jvm.symbols["gHotSpotVMTypes"], 0x7fff0000);
    EXPECT_FALSE(VmStructs::Read(jvm.memory, jvm.symbols).ok());
  }
}

TEST(JvmFacts, ReleaseMajorVersionAndBooleanFlags) {
  FakeJvm jvm;
  const uint64_t release = jvm.String("25.0.3+9-LTS");
  jvm.Symbol("release_ptr", release);
  jvm.Symbol("major", 25);
  // JVMFlag {void* _addr; const char* _name; int _flags; int _type} (24 bytes), three flags and
  // the table's terminating entry.
  const uint64_t values = 0x1e000;
  jvm.memory.Put(values, "\x01\x00\x01", 3);
  const std::vector<std::string> names = {"DisableAttachMechanism", "UsePerfData",
                                          "PreserveFramePointer"};
  const uint64_t flags = 0x1f000;
  for (size_t i = 0; i <= names.size(); ++i) {
    std::vector<uint8_t> zero(24, 0);
    jvm.memory.Put(flags + i * 24, zero.data(), zero.size());
    if (i == names.size()) break;
    jvm.memory.PutU64(flags + i * 24, values + i);
    jvm.memory.PutU64(flags + i * 24 + 8, jvm.String(names[i]));
  }
  jvm.Symbol("flags_ptr", flags);
  jvm.Symbol("num_flags", names.size() + 1);
  jvm.Field("Abstract_VM_Version", "_s_vm_release", true, jvm.symbols["release_ptr"]);
  jvm.Field("Abstract_VM_Version", "_vm_major_version", true, jvm.symbols["major"]);
  jvm.Field("JVMFlag", "flags", true, jvm.symbols["flags_ptr"]);
  jvm.Field("JVMFlag", "numFlags", true, jvm.symbols["num_flags"]);
  jvm.Field("JVMFlag", "_addr", false, 0);
  jvm.Field("JVMFlag", "_name", false, 8);
  jvm.Type("JVMFlag", 24);
  jvm.Finish();
  absl::StatusOr<VmStructs> vm = VmStructs::Read(jvm.memory, jvm.symbols);
  ASSERT_TRUE(vm.ok()) << vm.status();
  const absl::string_view wanted[] = {"DisableAttachMechanism", "PreserveFramePointer", "Nope"};
  absl::StatusOr<JvmFacts> facts = ReadJvmFacts(jvm.memory, *vm, wanted);
  ASSERT_TRUE(facts.ok()) << facts.status();
  EXPECT_EQ(facts->release, "25.0.3+9-LTS");
  EXPECT_EQ(facts->major, 25);
  EXPECT_EQ(facts->flags, (std::map<std::string, bool>{{"DisableAttachMechanism", true},
                                                       {"PreserveFramePointer", true}}));
  // An absurd flag count is refused, not walked.
  jvm.memory.PutU64(jvm.symbols["num_flags"], 1u << 30);
  EXPECT_FALSE(ReadJvmFacts(jvm.memory, *vm, wanted).ok());
}

}  // namespace
}  // namespace vtctx::reader
