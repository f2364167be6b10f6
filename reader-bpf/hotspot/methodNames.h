// The name of a Java method from its Method* in a live HotSpot JVM, as the perf map and async-
// profiler print it ("long Foo.bar(int, java.lang.String[])"): Method -> ConstMethod -> its
// ConstantPool (name and signature Symbols) and holder Klass (its name Symbol), found by name in
// gHotSpotVMStructs. Used for the scopes of JIT frames (nmethodScopes.h) and for interpreted
// frames, whose Method* the interpreter keeps in the frame (userStackUnwind.h).
//
// A Method* comes from the target (its code metadata or a copy of its stack): every read is
// checked and bounded, and a pointer that does not lead to a well-formed method is refused, never
// named after a guess.
#ifndef VTCTX_READER_METHOD_NAMES_H_
#define VTCTX_READER_METHOD_NAMES_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hotspot/vmStructs.h"
#include "target/processMemory.h"

namespace vtctx::reader {

// Where the fields MethodNames reads are, from gHotSpotVMStructs.
struct MethodLayout {
  uint64_t method_const = 0, const_constants = 0, const_name_index = 0, const_signature_index = 0;
  uint64_t const_code_size = 0, const_method_size = 0;  // bytecodes follow the ConstMethod
  uint64_t method_access_flags = 0;                     // JVM_ACC_NATIVE: no bytecodes
  uint64_t pool_holder = 0, pool_length = 0, pool_size = 0, klass_name = 0;
  uint64_t symbol_length = 0, symbol_body = 0;

  // FailedPrecondition naming the first field the tables lack.
  static absl::StatusOr<MethodLayout> From(const VmStructs& vm);
};

class MethodNames {
 public:
  // `memory` must outlive this.
  MethodNames(MemoryReader& memory, const MethodLayout& layout)
      : memory_(memory), layout_(layout) {}

  // The external name of the method at `method`, cached by address (a Method* lives until its
  // class is unloaded).
  absl::StatusOr<std::string> Name(uint64_t method);
  // The same for an interpreted frame's Method* and bytecode pointer (the two words the
  // interpreter keeps in its frame), refused unless `bcp` lies in that method's bytecodes, or is 0
  // in a native method's frame (the interpreter's native entry keeps no bcp): a frame caught before
  // the interpreter filled them in, or stale stack, is never named after a guess.
  absl::StatusOr<std::string> InterpretedName(uint64_t method, uint64_t bcp);

 private:
  absl::StatusOr<std::string> SymbolText(uint64_t symbol);

  MemoryReader& memory_;
  const MethodLayout layout_;
  std::map<uint64_t, std::string> names_;
};

// "long Foo.bar(int, java.lang.String[])" from the internal class name "Foo", method name "bar"
// and descriptor "(I[Ljava/lang/String;)J", as HotSpot's Method::external_name() prints it (the
// perf map's names). Hidden classes ("Foo$$Lambda+0x1234") print as "Foo$$Lambda/0x1234".
// nullopt for a malformed descriptor.
std::optional<std::string> ExternalMethodName(absl::string_view klass, absl::string_view name,
                                              absl::string_view descriptor);

}  // namespace vtctx::reader

#endif  // VTCTX_READER_METHOD_NAMES_H_
