// Every name the HotSpot code readers look up in gHotSpotVMStructs (vmStructs.h), one table:
// X(layout member, kind, type, field), kind Offset (a field's offset in its type), Address (a
// static field's address) or Size (sizeof(type)). Each group lists the rows one layout's From()
// finds together (VmStructs::Find: all or the first missing one named), into the members of a
// layout variable `l`:
//   code cache   CodeCacheLayout (codeCacheView.h): blobs by pc, frame sizes, the interpreter
//   method       MethodLayout (methodNames.h): Method* -> holder, name, signature, bytecodes
//   nmethod      NmethodLayout (nmethodScopes.h): PcDescs and scopes, common rows, then the JDK 25
//                (immutable data) or the JDK 21 (CompiledMethod) rows
//
// Names that JDK versions change, one group per thing named, its alternates in the order they are
// tried: the first one a JVM has wins; a JVM that has none is refused, naming every alternate
// (FirstNamed below). X(alternate, where, name, field, releases): where is Offset (a field's offset
// in gHotSpotVMStructs, or JVMCIVMStructs where gHotSpotVMStructs lacks it) or Symbol (libjvm.so's
// .symtab; field ""); releases says which JDKs have it, for the refusal and the docs.
//   java thread test  what tells a JavaThread from HotSpot's other threads (javaThreadLayout.cpp):
//                     its JNIEnv's function table (the field only JVMCI's table names: JDKs built
//                     without JVMCI, as Debian's 27, lack it), else its C++ vtable, by the symbol
//                     HotSpot's Serviceability Agent finds types by (plain JavaThreads only: the
//                     compiler and service threads, subclasses, run no application code)
//   java thread id    where a JavaThread keeps the id of the Java thread it runs
//   jvmti notify      HotSpot's JVMTI virtual-thread notification byte: only tests read it
//                     (tests/lib/vtctxtest/vtmsNotifyByte.py parses these rows)
#ifndef VTCTX_READER_HOTSPOT_NAMES_H_
#define VTCTX_READER_HOTSPOT_NAMES_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "hotspot/vmStructs.h"

#define VTCTX_CODE_CACHE_NAMES(X)                                      \
  X(heaps, Address, "CodeCache", "_heaps")                             \
  X(array_len, Offset, "GrowableArrayBase", "_len")                    \
  X(array_data, Offset, "GrowableArray<int>", "_data")                 \
  X(heap_memory, Offset, "CodeHeap", "_memory")                        \
  X(heap_segmap, Offset, "CodeHeap", "_segmap")                        \
  X(heap_log2_segment, Offset, "CodeHeap", "_log2_segment_size")       \
  X(space_low, Offset, "VirtualSpace", "_low_boundary")                \
  X(space_high, Offset, "VirtualSpace", "_high_boundary")              \
  X(block_header, Offset, "HeapBlock", "_header")                      \
  X(header_used, Offset, "HeapBlock::Header", "_used")                 \
  X(block_size, Size, "HeapBlock", "")                                 \
  X(blob_size, Offset, "CodeBlob", "_size")                            \
  X(blob_frame_size, Offset, "CodeBlob", "_frame_size")                \
  X(blob_frame_complete, Offset, "CodeBlob", "_frame_complete_offset") \
  X(interpreter_code, Address, "AbstractInterpreter", "_code")         \
  X(stub_buffer, Offset, "StubQueue", "_stub_buffer")                  \
  X(buffer_limit, Offset, "StubQueue", "_buffer_limit")

#define VTCTX_METHOD_NAMES(X)                                         \
  X(method_const, Offset, "Method", "_constMethod")                   \
  X(method_access_flags, Offset, "Method", "_access_flags")           \
  X(const_constants, Offset, "ConstMethod", "_constants")             \
  X(const_name_index, Offset, "ConstMethod", "_name_index")           \
  X(const_signature_index, Offset, "ConstMethod", "_signature_index") \
  X(const_code_size, Offset, "ConstMethod", "_code_size")             \
  X(const_method_size, Size, "ConstMethod", "")                       \
  X(pool_holder, Offset, "ConstantPool", "_pool_holder")              \
  X(pool_length, Offset, "ConstantPool", "_length")                   \
  X(pool_size, Size, "ConstantPool", "")                              \
  X(klass_name, Offset, "Klass", "_name")                             \
  X(symbol_length, Offset, "Symbol", "_length")                       \
  X(symbol_body, Offset, "Symbol", "_body")

#define VTCTX_NMETHOD_NAMES(X)                                  \
  X(header_size, Size, "nmethod", "")                           \
  X(blob_name, Offset, "CodeBlob", "_name")                     \
  X(scopes_pcs_offset, Offset, "nmethod", "_scopes_pcs_offset") \
  X(pc_desc_size, Size, "PcDesc", "")                           \
  X(pc_desc_pc_offset, Offset, "PcDesc", "_pc_offset")          \
  X(pc_desc_scope_offset, Offset, "PcDesc", "_scope_decode_offset")

#define VTCTX_NMETHOD_NAMES_JDK25(X)                                \
  X(method, Offset, "nmethod", "_method")                           \
  X(code_offset, Offset, "CodeBlob", "_code_offset")                \
  X(immutable_data, Offset, "nmethod", "_immutable_data")           \
  X(immutable_data_size, Offset, "nmethod", "_immutable_data_size") \
  X(scopes_data_offset, Offset, "nmethod", "_scopes_data_offset")   \
  X(mutable_data, Offset, "CodeBlob", "_mutable_data")              \
  X(mutable_data_size, Offset, "CodeBlob", "_mutable_data_size")    \
  X(relocation_size, Offset, "CodeBlob", "_relocation_size")

#define VTCTX_NMETHOD_NAMES_JDK21(X)                                   \
  X(method, Offset, "CompiledMethod", "_method")                       \
  X(code_begin, Offset, "CodeBlob", "_code_begin")                     \
  X(scopes_data_begin, Offset, "CompiledMethod", "_scopes_data_begin") \
  X(metadata_offset, Offset, "nmethod", "_metadata_offset")            \
  X(dependencies_offset, Offset, "nmethod", "_dependencies_offset")

#define VTCTX_JAVA_THREAD_TEST_NAMES(X)                                                    \
  X(kJniEnvironment, Offset, "JavaThread", "_jni_environment", "JDK 21+ built with JVMCI") \
  X(kVtable, Symbol, "_ZTV10JavaThread", "", "every JDK whose libjvm.so keeps its .symtab")

#define VTCTX_JAVA_THREAD_ID_NAMES(X)                                      \
  X(kMonitorOwnerId, Offset, "JavaThread", "_monitor_owner_id", "JDK 24+") \
  X(kVthread, Offset, "JavaThread", "_vthread", "JDK 21-23")

#define VTCTX_JVMTI_NOTIFY_NAMES(X)                                                        \
  X(kMountUnmountDisabler, Symbol, "_ZN20MountUnmountDisabler20_notify_jvmti_eventsE", "", \
    "JDK 26+")                                                                             \
  X(kVtmsTransitionDisabler, Symbol,                                                       \
    "_ZN27JvmtiVTMSTransitionDisabler25_VTMS_notify_jvmti_eventsE", "", "JDK 21-25")

// A row of VmStructs::Find filling `l.member`.
#define VTCTX_FIND_ROW(member, kind, type, field) \
  ::vtctx::reader::VmName{::vtctx::reader::VmName::Kind::k##kind, type, field, &l.member},

namespace vtctx::reader {

// One alternate of a group above.
struct AlternateName {
  enum class Where { kOffset, kSymbol };
  Where where;
  absl::string_view name;  // the type (kOffset) or the symbol (kSymbol)
  absl::string_view field;
  absl::string_view releases;
};

#define VTCTX_ALTERNATE_ID(id, where, name, field, releases) id,
#define VTCTX_ALTERNATE_ROW(id, where, name, field, releases)                                  \
  ::vtctx::reader::AlternateName{::vtctx::reader::AlternateName::Where::k##where, name, field, \
                                 releases},
enum class JavaThreadTest { VTCTX_JAVA_THREAD_TEST_NAMES(VTCTX_ALTERNATE_ID) };
inline constexpr AlternateName kJavaThreadTestNames[] = {
    VTCTX_JAVA_THREAD_TEST_NAMES(VTCTX_ALTERNATE_ROW)};
enum class JavaThreadId { VTCTX_JAVA_THREAD_ID_NAMES(VTCTX_ALTERNATE_ID) };
inline constexpr AlternateName kJavaThreadIdNames[] = {
    VTCTX_JAVA_THREAD_ID_NAMES(VTCTX_ALTERNATE_ROW)};
enum class JvmtiNotify { VTCTX_JVMTI_NOTIFY_NAMES(VTCTX_ALTERNATE_ID) };
inline constexpr AlternateName kJvmtiNotifyNames[] = {
    VTCTX_JVMTI_NOTIFY_NAMES(VTCTX_ALTERNATE_ROW)};

// The first alternate of `group` that `has` finds (its index, and the value `has` gave: an offset,
// or a symbol's st_value); nullopt if none. `has(alternate)` returns the value or nullopt.
template <typename Has>
std::optional<std::pair<size_t, uint64_t>> FirstNamed(std::span<const AlternateName> group,
                                                      Has has) {
  for (size_t i = 0; i < group.size(); ++i) {
    if (std::optional<uint64_t> value = has(group[i])) return std::make_pair(i, *value);
  }
  return std::nullopt;
}

// "JavaThread::_jni_environment (JDK 21+ built with JVMCI), _ZTV10JavaThread (...)": what a
// refusal names.
inline std::string DescribeAlternates(std::span<const AlternateName> group) {
  std::string out;
  for (const AlternateName& a : group) {
    absl::StrAppend(&out, out.empty() ? "" : ", ", a.name, a.field.empty() ? "" : "::", a.field,
                    " (", a.releases, ")");
  }
  return out;
}

}  // namespace vtctx::reader

#endif  // VTCTX_READER_HOTSPOT_NAMES_H_
