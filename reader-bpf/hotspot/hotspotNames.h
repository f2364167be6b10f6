// Every name the HotSpot code readers look up in gHotSpotVMStructs (vmStructs.h), one table:
// X(layout member, kind, type, field), kind Offset (a field's offset in its type), Address (a
// static field's address) or Size (sizeof(type)). Each group lists the rows one layout's From()
// finds together (VmStructs::Find: all or the first missing one named), into the members of a
// layout variable `l`:
//   code cache   CodeCacheLayout (codeCacheView.h): blobs by pc, frame sizes, the interpreter
//   method       MethodLayout (methodNames.h): Method* -> holder, name, signature, bytecodes
//   nmethod      NmethodLayout (nmethodScopes.h): PcDescs and scopes, common rows, then the JDK 25
//                (immutable data) or the JDK 21 (CompiledMethod) rows
#ifndef VTCTX_READER_HOTSPOT_NAMES_H_
#define VTCTX_READER_HOTSPOT_NAMES_H_

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

// A row of VmStructs::Find filling `l.member`.
#define VTCTX_FIND_ROW(member, kind, type, field) \
  ::vtctx::reader::VmName{::vtctx::reader::VmName::Kind::k##kind, type, field, &l.member},

#endif  // VTCTX_READER_HOTSPOT_NAMES_H_
