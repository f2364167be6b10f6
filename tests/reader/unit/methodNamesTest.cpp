// Java method names from a Method* (hotspot/methodNames.h), on a fake JVM memory laid out as
// HotSpot lays out Method -> ConstMethod (bytecodes after it) -> ConstantPool (entries after it)
// -> holder Klass -> Symbols; and the refusals: a bytecode pointer outside the method (an
// interpreted frame not yet filled in, stale stack), indexes outside the pool, unreadable memory.
#include <gtest/gtest.h>

#include <string>

#include "fakeMemory.h"
#include "hotspot/hotspotNames.h"
#include "hotspot/methodNames.h"

namespace vtctx::reader {
namespace {

// Field offsets of this fake layout: every row of hotspotNames.h's method group 8 bytes after the
// one before (any distinct values do: they only have to agree with the writes below).
MethodLayout Layout() {
  MethodLayout l;
  uint64_t next = 0;
#define VTCTX_FAKE_OFFSET(member, kind, type, field) l.member = (next += 8);
  VTCTX_METHOD_NAMES(VTCTX_FAKE_OFFSET)
#undef VTCTX_FAKE_OFFSET
  return l;
}

constexpr uint64_t kMethod = 0x1000, kConstMethod = 0x2000, kPool = 0x3000, kKlass = 0x4000;
constexpr uint16_t kCodeSize = 12;

class FakeMethod {
 public:
  FakeMethod(const std::string& klass, const std::string& name, const std::string& signature) {
    const MethodLayout l = Layout();
    memory.PutU64(kMethod + l.method_const, kConstMethod);
    const uint16_t flags = 0x0001;  // JVM_ACC_PUBLIC
    memory.Put(kMethod + l.method_access_flags, &flags, 2);
    memory.PutU64(kConstMethod + l.const_constants, kPool);
    const uint16_t name_index = 3, signature_index = 4;
    memory.Put(kConstMethod + l.const_name_index, &name_index, 2);
    memory.Put(kConstMethod + l.const_signature_index, &signature_index, 2);
    memory.Put(kConstMethod + l.const_code_size, &kCodeSize, 2);
    memory.PutU64(kPool + l.pool_holder, kKlass);
    const int32_t length = 5;
    memory.Put(kPool + l.pool_length, &length, 4);
    memory.PutU64(kPool + l.pool_size + 8 * 3, Symbol(0x5000, name));
    memory.PutU64(kPool + l.pool_size + 8 * 4, Symbol(0x6000, signature));
    memory.PutU64(kKlass + l.klass_name, Symbol(0x7000, klass));
  }
  uint64_t Symbol(uint64_t at, const std::string& text) {
    const uint16_t length = static_cast<uint16_t>(text.size());
    memory.Put(at + Layout().symbol_length, &length, 2);
    memory.Put(at + Layout().symbol_body, text.data(), text.size());
    return at;
  }
  FakeMemory memory;
};

const uint64_t kCode = kConstMethod + Layout().const_method_size;  // the first bytecode

TEST(MethodNames, NamesAMethodAsHotSpotPrintsIt) {
  FakeMethod m("io/vtctx/Foo$$Lambda+0x0000abcd", "bar", "(I[Ljava/lang/String;)J");
  MethodNames names(m.memory, Layout());
  absl::StatusOr<std::string> name = names.Name(kMethod);
  ASSERT_TRUE(name.ok()) << name.status();
  EXPECT_EQ(*name, "long io.vtctx.Foo$$Lambda/0x0000abcd.bar(int, java.lang.String[])");
}

TEST(MethodNames, AnInterpretedFrameIsNamedOnlyWithItsBytecodePointerInTheMethod) {
  FakeMethod m("Foo", "run", "()V");
  MethodNames names(m.memory, Layout());
  EXPECT_EQ(*names.InterpretedName(kMethod, kCode), "void Foo.run()");
  EXPECT_EQ(*names.InterpretedName(kMethod, kCode + kCodeSize - 1), "void Foo.run()");
  // Not yet filled in (0, in a method that is not native), one past the end, before the code,
  // another method's stale bcp.
  for (uint64_t bcp : {uint64_t{0}, kCode + kCodeSize, kCode - 1, uint64_t{0x9999}}) {
    EXPECT_FALSE(names.InterpretedName(kMethod, bcp).ok()) << bcp;
  }
  // A native method's frame keeps no bcp: named by its Method* alone.
  const uint16_t native = 0x0100 | 0x0001;  // JVM_ACC_NATIVE | JVM_ACC_PUBLIC
  m.memory.Put(kMethod + Layout().method_access_flags, &native, 2);
  EXPECT_EQ(*MethodNames(m.memory, Layout()).InterpretedName(kMethod, 0), "void Foo.run()");
  // A Method* that leads nowhere.
  EXPECT_FALSE(names.InterpretedName(0x8000, kCode).ok());
}

TEST(MethodNames, RefusesWhatIsNotAWellFormedMethod) {
  {
    FakeMethod m("Foo", "run", "(Q)V");  // not a descriptor
    EXPECT_FALSE(MethodNames(m.memory, Layout()).Name(kMethod).ok());
  }
  {
    FakeMethod m("", "run", "()V");  // no class name
    EXPECT_FALSE(MethodNames(m.memory, Layout()).Name(kMethod).ok());
  }
  {
    FakeMethod m("Foo", "run", "()V");
    const int32_t length = 4;  // the signature's index (4) is outside the pool
    m.memory.Put(kPool + Layout().pool_length, &length, 4);
    EXPECT_FALSE(MethodNames(m.memory, Layout()).Name(kMethod).ok());
  }
}

TEST(ExternalMethodName, PrintsAsThePerfMapDoes) {
  EXPECT_EQ(ExternalMethodName("InlineChain", "leaf", "(JI)J"), "long InlineChain.leaf(long, int)");
  EXPECT_EQ(ExternalMethodName("InlineChain", "lambda$main$0", "()V"),
            "void InlineChain.lambda$main$0()");
  EXPECT_EQ(ExternalMethodName("java/util/Map", "get", "(Ljava/lang/Object;)Ljava/lang/Object;"),
            "java.lang.Object java.util.Map.get(java.lang.Object)");
  EXPECT_EQ(ExternalMethodName("A", "m", "([[I[Ljava/lang/String;Z)[B"),
            "byte[] A.m(int[][], java.lang.String[], boolean)");
  EXPECT_EQ(ExternalMethodName("A$$Lambda+0x00007f0000001234", "run", "()V"),
            "void A$$Lambda/0x00007f0000001234.run()");
  EXPECT_FALSE(ExternalMethodName("A", "m", "(I"));
  EXPECT_FALSE(ExternalMethodName("A", "m", "(V)V"));
  EXPECT_FALSE(ExternalMethodName("A", "m", "(Ljava/lang/String)V"));
  EXPECT_FALSE(ExternalMethodName("A", "m", "()VV"));
  EXPECT_FALSE(ExternalMethodName("A", "m", "I"));
}

}  // namespace
}  // namespace vtctx::reader
