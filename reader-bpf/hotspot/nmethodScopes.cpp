#include "hotspot/nmethodScopes.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hotspot/jvmFacts.h"
#include "target/procMaps.h"
#include "target/untrustedText.h"

namespace vtctx::reader {
namespace {

constexpr uint64_t kMaxHeaders = 4096;          // sizeof(nmethod) is 224 (JDK 25), 344 (21)
constexpr uint64_t kMaxHeaps = 16;              // non-nmethods, profiled, non-profiled today
constexpr uint64_t kMaxSegmentHops = 1u << 16;  // a hop skips up to 254 segments
constexpr uint64_t kMaxTableBytes = 16u << 20;  // PcDescs or scopes of one nmethod
constexpr uint64_t kMaxMetadata = 1u << 20;     // metadata entries of one nmethod
constexpr size_t kMaxBlobName = 64;

// A field of type T at `offset` in `bytes`, nullopt when it does not fit.
template <typename T>
std::optional<T> FieldAt(const std::vector<uint8_t>& bytes, uint64_t offset) {
  static_assert(std::is_trivially_copyable_v<T>);
  if (offset > bytes.size() || bytes.size() - offset < sizeof(T)) return std::nullopt;
  T value;
  std::memcpy(&value, bytes.data() + offset, sizeof(T));
  return value;
}

template <typename T>
absl::StatusOr<T> ReadValue(MemoryReader& memory, uint64_t address) {
  T value{};
  if (absl::Status s = memory.Read(address, &value, sizeof value); !s.ok()) return s;
  return value;
}

// The external form of one field descriptor at `*pos` ("I" -> "int", "[Ljava/lang/String;" ->
// "java.lang.String[]"), advancing `*pos`.
std::optional<std::string> ExternalType(absl::string_view d, size_t* pos) {
  int dims = 0;
  while (*pos < d.size() && d[*pos] == '[') {
    ++dims;
    ++*pos;
    if (dims > 255) return std::nullopt;
  }
  if (*pos >= d.size()) return std::nullopt;
  std::string type;
  switch (d[(*pos)++]) {
    case 'B':
      type = "byte";
      break;
    case 'C':
      type = "char";
      break;
    case 'D':
      type = "double";
      break;
    case 'F':
      type = "float";
      break;
    case 'I':
      type = "int";
      break;
    case 'J':
      type = "long";
      break;
    case 'S':
      type = "short";
      break;
    case 'Z':
      type = "boolean";
      break;
    case 'V':
      type = "void";
      break;
    case 'L': {
      const size_t end = d.find(';', *pos);
      if (end == absl::string_view::npos || end == *pos) return std::nullopt;
      type = std::string(d.substr(*pos, end - *pos));
      std::replace(type.begin(), type.end(), '/', '.');
      *pos = end + 1;
      break;
    }
    default:
      return std::nullopt;
  }
  for (int i = 0; i < dims; ++i) type += "[]";
  return type;
}

std::string ExternalClassName(absl::string_view klass) {
  std::string out(klass);
  std::replace(out.begin(), out.end(), '/', '.');
  // A hidden class's name ends in "+0x<address>"; Klass::external_name() prints '/' there.
  if (const size_t plus = out.rfind("+0x"); plus != std::string::npos) out[plus] = '/';
  return out;
}

// Non-zero address `a + b`, refusing wrap-around.
std::optional<uint64_t> Add(uint64_t a, int64_t b) {
  const uint64_t sum = a + static_cast<uint64_t>(b);
  if ((b >= 0 && sum < a) || (b < 0 && sum > a)) return std::nullopt;
  return sum;
}

}  // namespace

std::optional<std::string> ExternalMethodName(absl::string_view klass, absl::string_view name,
                                              absl::string_view descriptor) {
  if (descriptor.empty() || descriptor[0] != '(') return std::nullopt;
  size_t pos = 1;
  std::vector<std::string> params;
  while (pos < descriptor.size() && descriptor[pos] != ')') {
    std::optional<std::string> p = ExternalType(descriptor, &pos);
    if (!p || *p == "void") return std::nullopt;
    params.push_back(*std::move(p));
  }
  if (pos >= descriptor.size()) return std::nullopt;
  ++pos;  // ')'
  std::optional<std::string> ret = ExternalType(descriptor, &pos);
  if (!ret || pos != descriptor.size()) return std::nullopt;
  return absl::StrCat(*ret, " ", ExternalClassName(klass), ".", name, "(",
                      absl::StrJoin(params, ", "), ")");
}

absl::StatusOr<NmethodLayout> NmethodLayout::From(const VmStructs& vm) {
  NmethodLayout l;
  std::string missing;
  auto off = [&](absl::string_view type, absl::string_view field, uint64_t& out) {
    if (std::optional<uint64_t> o = vm.Offset(type, field)) {
      out = *o;
      return true;
    }
    if (missing.empty()) missing = absl::StrCat(type, "::", field);
    return false;
  };
  auto size = [&](absl::string_view type, uint64_t& out) {
    if (std::optional<uint64_t> s = vm.TypeSize(type); s && *s > 0 && *s <= kMaxHeaders) {
      out = *s;
      return;
    }
    if (missing.empty()) missing = absl::StrCat("sizeof(", type, ")");
  };
  if (std::optional<uint64_t> heaps = vm.Address("CodeCache", "_heaps")) {
    l.heaps = *heaps;
  } else {
    missing = "CodeCache::_heaps";
  }
  off("GrowableArrayBase", "_len", l.array_len);
  off("GrowableArray<int>", "_data", l.array_data);
  off("CodeHeap", "_memory", l.heap_memory);
  off("CodeHeap", "_segmap", l.heap_segmap);
  off("CodeHeap", "_log2_segment_size", l.heap_log2_segment);
  off("VirtualSpace", "_low", l.space_low);
  off("VirtualSpace", "_high", l.space_high);
  uint64_t header = 0, used = 0;
  off("HeapBlock", "_header", header);
  off("HeapBlock::Header", "_used", used);
  l.block_used = header + used;
  size("HeapBlock", l.block_size);
  size("nmethod", l.header_size);
  off("CodeBlob", "_name", l.blob_name);
  if (std::optional<uint64_t> kind = vm.Offset("CodeBlob", "_kind")) {
    std::optional<int64_t> nmethod = vm.Constant("CodeBlobKind::Nmethod");
    if (!nmethod && missing.empty()) missing = "CodeBlobKind::Nmethod";
    l.blob_kind = kind;
    l.kind_nmethod = nmethod.value_or(0);
  }
  off("nmethod", "_scopes_pcs_offset", l.scopes_pcs_offset);
  l.immutable_data_layout = vm.Offset("nmethod", "_immutable_data").has_value();
  if (l.immutable_data_layout) {
    off("nmethod", "_method", l.method);
    off("CodeBlob", "_code_offset", l.code_offset);
    off("nmethod", "_immutable_data", l.immutable_data);
    off("nmethod", "_immutable_data_size", l.immutable_data_size);
    off("nmethod", "_scopes_data_offset", l.scopes_data_offset);
    off("CodeBlob", "_mutable_data", l.mutable_data);
    off("CodeBlob", "_mutable_data_size", l.mutable_data_size);
    off("CodeBlob", "_relocation_size", l.relocation_size);
  } else {
    off("CompiledMethod", "_method", l.method);
    off("CodeBlob", "_code_begin", l.code_begin);
    off("CompiledMethod", "_scopes_data_begin", l.scopes_data_begin);
    off("nmethod", "_metadata_offset", l.metadata_offset);
    off("nmethod", "_dependencies_offset", l.dependencies_offset);
  }
  size("PcDesc", l.pc_desc_size);
  off("PcDesc", "_pc_offset", l.pc_desc_pc_offset);
  off("PcDesc", "_scope_decode_offset", l.pc_desc_scope_offset);
  off("Method", "_constMethod", l.method_const);
  off("ConstMethod", "_constants", l.const_constants);
  off("ConstMethod", "_name_index", l.const_name_index);
  off("ConstMethod", "_signature_index", l.const_signature_index);
  off("ConstantPool", "_pool_holder", l.pool_holder);
  off("ConstantPool", "_length", l.pool_length);
  size("ConstantPool", l.pool_size);
  off("Klass", "_name", l.klass_name);
  off("Symbol", "_length", l.symbol_length);
  off("Symbol", "_body", l.symbol_body);
  if (!missing.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("HotSpot's tables do not name ", missing, " (JDK 21 and 25 layouts known)"));
  }
  if (l.pc_desc_size < 8 || l.pc_desc_pc_offset + 4 > l.pc_desc_size ||
      l.pc_desc_scope_offset + 4 > l.pc_desc_size) {
    return absl::FailedPreconditionError("HotSpot's PcDesc is not as expected");
  }
  return l;
}

absl::StatusOr<std::unique_ptr<NmethodScopes>> NmethodScopes::ForTarget(
    const TargetProcess& target) {
  absl::StatusOr<std::vector<Mapping>> maps = ReadMapsIn(target.dir());
  if (!maps.ok()) return maps.status();
  absl::StatusOr<std::unique_ptr<ProcessMemory>> memory = ProcessMemory::OpenIn(target.dir());
  if (!memory.ok()) return memory.status();
  absl::StatusOr<VmStructs> vm = OpenVmStructs(target.dir(), *maps, **memory);
  if (!vm.ok()) return vm.status();
  absl::StatusOr<NmethodLayout> layout = NmethodLayout::From(*vm);
  if (!layout.ok()) return layout.status();
  return std::make_unique<NmethodScopes>(*std::move(memory), *layout);
}

absl::StatusOr<uint64_t> NmethodScopes::FindBlob(uint64_t address) {
  const NmethodLayout& l = layout_;
  absl::StatusOr<uint64_t> array = memory_->ReadU64(l.heaps);
  if (!array.ok()) return array.status();
  absl::StatusOr<int32_t> len = ReadValue<int32_t>(*memory_, *array + l.array_len);
  absl::StatusOr<uint64_t> data = memory_->ReadU64(*array + l.array_data);
  if (!len.ok()) return len.status();
  if (!data.ok()) return data.status();
  if (*len < 0 || static_cast<uint64_t>(*len) > kMaxHeaps) {
    return absl::InvalidArgumentError(absl::StrCat("CodeCache::_heaps has ", *len, " heaps"));
  }
  for (int32_t i = 0; i < *len; ++i) {
    absl::StatusOr<uint64_t> heap = memory_->ReadU64(*data + 8 * static_cast<uint64_t>(i));
    if (!heap.ok()) return heap.status();
    absl::StatusOr<uint64_t> low = memory_->ReadU64(*heap + l.heap_memory + l.space_low);
    absl::StatusOr<uint64_t> high = memory_->ReadU64(*heap + l.heap_memory + l.space_high);
    if (!low.ok() || !high.ok()) return absl::InvalidArgumentError("unreadable CodeHeap");
    if (address < *low || address >= *high) continue;
    absl::StatusOr<uint64_t> segmap = memory_->ReadU64(*heap + l.heap_segmap + l.space_low);
    absl::StatusOr<int32_t> log2 = ReadValue<int32_t>(*memory_, *heap + l.heap_log2_segment);
    if (!segmap.ok() || !log2.ok() || *log2 < 4 || *log2 > 16) {
      return absl::InvalidArgumentError("unreadable CodeHeap segment map");
    }
    // The segment map holds, per segment, how many segments to step back towards the start of
    // its block (0: the block starts here; 0xff: unused).
    uint64_t segment = (address - *low) >> *log2;
    for (uint64_t hop = 0;; ++hop) {
      absl::StatusOr<uint8_t> step = ReadValue<uint8_t>(*memory_, *segmap + segment);
      if (!step.ok()) return step.status();
      if (*step == 0xff) return absl::NotFoundError("the address is in no allocated code block");
      if (*step == 0) break;
      if (*step > segment || hop >= kMaxSegmentHops) {
        return absl::InvalidArgumentError("malformed CodeHeap segment map");
      }
      segment -= *step;
    }
    const uint64_t block = *low + (segment << *log2);
    absl::StatusOr<uint8_t> used = ReadValue<uint8_t>(*memory_, block + l.block_used);
    if (!used.ok()) return used.status();
    if (*used == 0) return absl::NotFoundError("the code block is free");
    return block + l.block_size;
  }
  return absl::NotFoundError("the address is in no code heap");
}

absl::StatusOr<std::string> NmethodScopes::SymbolText(uint64_t symbol) {
  absl::StatusOr<uint16_t> length = ReadValue<uint16_t>(*memory_, symbol + layout_.symbol_length);
  if (!length.ok()) return length.status();
  std::string text(*length, '\0');
  if (*length > 0) {
    if (absl::Status s = memory_->Read(symbol + layout_.symbol_body, text.data(), text.size());
        !s.ok()) {
      return s;
    }
  }
  return text;
}

absl::StatusOr<std::string> NmethodScopes::MethodName(uint64_t method) {
  if (auto it = method_names_.find(method); it != method_names_.end()) return it->second;
  const NmethodLayout& l = layout_;
  absl::StatusOr<uint64_t> const_method = memory_->ReadU64(method + l.method_const);
  if (!const_method.ok()) return const_method.status();
  absl::StatusOr<uint64_t> pool = memory_->ReadU64(*const_method + l.const_constants);
  absl::StatusOr<uint16_t> name_index =
      ReadValue<uint16_t>(*memory_, *const_method + l.const_name_index);
  absl::StatusOr<uint16_t> signature_index =
      ReadValue<uint16_t>(*memory_, *const_method + l.const_signature_index);
  if (!pool.ok() || !name_index.ok() || !signature_index.ok()) {
    return absl::InvalidArgumentError("unreadable ConstMethod");
  }
  absl::StatusOr<int32_t> pool_length = ReadValue<int32_t>(*memory_, *pool + l.pool_length);
  absl::StatusOr<uint64_t> holder = memory_->ReadU64(*pool + l.pool_holder);
  if (!pool_length.ok() || !holder.ok()) return absl::InvalidArgumentError("unreadable pool");
  if (*name_index == 0 || *signature_index == 0 || *name_index >= *pool_length ||
      *signature_index >= *pool_length) {
    return absl::InvalidArgumentError("method name outside its constant pool");
  }
  // The pool's entries follow the ConstantPool object, one word each; a name is a Symbol*.
  absl::StatusOr<uint64_t> name = memory_->ReadU64(*pool + l.pool_size + 8u * *name_index);
  absl::StatusOr<uint64_t> signature =
      memory_->ReadU64(*pool + l.pool_size + 8u * *signature_index);
  absl::StatusOr<uint64_t> klass = memory_->ReadU64(*holder + l.klass_name);
  if (!name.ok() || !signature.ok() || !klass.ok()) {
    return absl::InvalidArgumentError("unreadable method symbols");
  }
  absl::StatusOr<std::string> name_text = SymbolText(*name);
  absl::StatusOr<std::string> signature_text = SymbolText(*signature);
  absl::StatusOr<std::string> klass_text = SymbolText(*klass);
  if (!name_text.ok() || !signature_text.ok() || !klass_text.ok()) {
    return absl::InvalidArgumentError("unreadable method symbols");
  }
  std::optional<std::string> external =
      ExternalMethodName(*klass_text, *name_text, *signature_text);
  if (!external) {
    return absl::InvalidArgumentError(
        absl::StrCat("malformed method descriptor ", Printable(*signature_text, 100)));
  }
  method_names_[method] = *external;
  return *external;
}

absl::StatusOr<NmethodScopes::Nmethod> NmethodScopes::ReadNmethod(uint64_t code_begin,
                                                                  absl::string_view name) {
  const NmethodLayout& l = layout_;
  absl::StatusOr<uint64_t> blob = FindBlob(code_begin);
  if (!blob.ok()) return blob.status();
  std::vector<uint8_t> h(l.header_size);
  if (absl::Status s = memory_->Read(*blob, h.data(), h.size()); !s.ok()) return s;
  Nmethod nm;
  const std::optional<uint64_t> name_at = FieldAt<uint64_t>(h, l.blob_name);
  if (!name_at) return absl::InvalidArgumentError("nmethod header too small");
  absl::StatusOr<std::string> blob_name = memory_->ReadCString(*name_at, kMaxBlobName);
  const std::optional<uint8_t> kind =
      l.blob_kind ? FieldAt<uint8_t>(h, *l.blob_kind) : std::optional<uint8_t>();
  if (!blob_name.ok() || *blob_name != "nmethod" ||
      (l.blob_kind && (!kind || *kind != l.kind_nmethod))) {
    return absl::UnimplementedError("not an nmethod");  // a stub, adapter, buffer blob...
  }
  std::optional<uint64_t> method = FieldAt<uint64_t>(h, l.method);
  std::optional<int32_t> pcs_offset = FieldAt<int32_t>(h, l.scopes_pcs_offset);
  std::optional<uint64_t> begin, pcs_begin, pcs_end, scopes_begin, scopes_end, metadata,
      metadata_end;
  if (l.immutable_data_layout) {
    const std::optional<int32_t> code_offset = FieldAt<int32_t>(h, l.code_offset);
    const std::optional<uint64_t> immutable = FieldAt<uint64_t>(h, l.immutable_data);
    const std::optional<int32_t> immutable_size = FieldAt<int32_t>(h, l.immutable_data_size);
    const std::optional<int32_t> scopes_offset = FieldAt<int32_t>(h, l.scopes_data_offset);
    const std::optional<uint64_t> mutable_data = FieldAt<uint64_t>(h, l.mutable_data);
    const std::optional<int32_t> mutable_size = FieldAt<int32_t>(h, l.mutable_data_size);
    const std::optional<int32_t> relocation_size = FieldAt<int32_t>(h, l.relocation_size);
    if (code_offset && immutable && immutable_size && scopes_offset && mutable_data &&
        mutable_size && relocation_size && pcs_offset && *code_offset >= 0 &&
        *immutable_size >= 0 && *mutable_size >= 0 && *relocation_size >= 0) {
      begin = Add(*blob, *code_offset);
      pcs_begin = Add(*immutable, *pcs_offset);
      pcs_end = scopes_begin = Add(*immutable, *scopes_offset);
      scopes_end = Add(*immutable, *immutable_size);
      metadata = Add(*mutable_data, *relocation_size);
      metadata_end = Add(*mutable_data, *mutable_size);
    }
  } else {
    const std::optional<uint64_t> code = FieldAt<uint64_t>(h, l.code_begin);
    const std::optional<uint64_t> scopes = FieldAt<uint64_t>(h, l.scopes_data_begin);
    const std::optional<int32_t> metadata_offset = FieldAt<int32_t>(h, l.metadata_offset);
    const std::optional<int32_t> dependencies = FieldAt<int32_t>(h, l.dependencies_offset);
    if (code && scopes && metadata_offset && dependencies && pcs_offset) {
      begin = code;
      pcs_begin = Add(*blob, *pcs_offset);
      pcs_end = Add(*blob, *dependencies);
      scopes_begin = scopes;
      scopes_end = pcs_begin;  // the scopes data ends where the PcDescs begin
      metadata = Add(*blob, *metadata_offset);
      metadata_end = scopes;
    }
  }
  if (!method || !begin || !pcs_begin || !pcs_end || !scopes_begin || !scopes_end || !metadata ||
      !metadata_end) {
    return absl::InvalidArgumentError("nmethod header out of range");
  }
  if (*begin != code_begin) {
    return absl::FailedPreconditionError("the nmethod there now begins elsewhere");
  }
  absl::StatusOr<std::string> method_name = MethodName(*method);
  if (!method_name.ok()) return method_name.status();
  if (*method_name != name) {
    return absl::FailedPreconditionError(
        absl::StrCat("the nmethod there now runs ", Printable(*method_name, 200)));
  }
  if (*pcs_end < *pcs_begin || *pcs_end - *pcs_begin > kMaxTableBytes ||
      (*pcs_end - *pcs_begin) % l.pc_desc_size != 0 || *scopes_end < *scopes_begin ||
      *scopes_end - *scopes_begin > kMaxTableBytes || *metadata_end < *metadata ||
      (*metadata_end - *metadata) / 8 > kMaxMetadata) {
    return absl::InvalidArgumentError("nmethod sections out of range");
  }
  std::vector<uint8_t> pcs(*pcs_end - *pcs_begin);
  nm.scopes.resize(*scopes_end - *scopes_begin);
  if (absl::Status s = memory_->Read(*pcs_begin, pcs.data(), pcs.size()); !s.ok()) return s;
  if (absl::Status s = memory_->Read(*scopes_begin, nm.scopes.data(), nm.scopes.size()); !s.ok())
    return s;
  for (size_t at = 0; at < pcs.size(); at += l.pc_desc_size) {
    PcDescEntry e;
    std::memcpy(&e.pc_offset, pcs.data() + at + l.pc_desc_pc_offset, 4);
    std::memcpy(&e.scope_offset, pcs.data() + at + l.pc_desc_scope_offset, 4);
    nm.pcs.push_back(e);
  }
  nm.usable = true;
  nm.method = *method;
  nm.metadata = *metadata;
  nm.metadata_count = (*metadata_end - *metadata) / 8;
  return nm;
}

std::optional<std::vector<std::string>> NmethodScopes::MethodsAt(uint64_t code_begin,
                                                                 absl::string_view name,
                                                                 uint64_t pc, bool return_address) {
  auto refuse = [&](const absl::Status& why) {
    counts_.refused++;
    if (first_refusal_.empty()) {
      first_refusal_ = absl::StrCat(Printable(name, 200), ": ", Printable(why.message(), 200));
    }
  };
  auto it = nmethods_.find(code_begin);
  if (it == nmethods_.end()) {
    absl::StatusOr<Nmethod> nm = ReadNmethod(code_begin, name);
    if (nm.ok()) {
      counts_.nmethods++;
    } else if (absl::IsUnimplemented(nm.status())) {
      counts_.not_java++;
    } else {
      refuse(nm.status());
    }
    it = nmethods_.emplace(code_begin, nm.ok() ? *std::move(nm) : Nmethod{}).first;
  }
  Nmethod& nm = it->second;
  if (!nm.usable || pc < code_begin) return std::nullopt;
  const uint64_t offset = pc - code_begin;
  if (offset > INT32_MAX) return std::nullopt;
  // HotSpot's PcDescs are at return addresses: a caller's frame is described exactly there; the
  // innermost frame, stopped anywhere, by the next PcDesc after its pc.
  const PcDescEntry* desc =
      return_address ? FindPcDesc(nm.pcs, static_cast<int64_t>(offset), /*approximate=*/false)
                     : FindPcDesc(nm.pcs, static_cast<int64_t>(offset) + 1, /*approximate=*/true);
  if (desc == nullptr || desc->scope_offset < 0) return std::nullopt;
  absl::StatusOr<std::vector<ScopeRecord>> chain =
      DecodeScopeChain(nm.scopes, static_cast<uint32_t>(desc->scope_offset));
  if (!chain.ok() || chain->empty()) return std::nullopt;
  std::vector<std::string> names;
  uint64_t outermost = 0;
  for (const ScopeRecord& r : *chain) {
    if (r.method_index == 0 || r.method_index > nm.metadata_count) return std::nullopt;
    absl::StatusOr<uint64_t> method =
        memory_->ReadU64(nm.metadata + 8u * (uint64_t{r.method_index} - 1));
    if (!method.ok()) return std::nullopt;
    absl::StatusOr<std::string> method_name = MethodName(*method);
    if (!method_name.ok()) return std::nullopt;
    names.push_back(*std::move(method_name));
    outermost = *method;
  }
  // The outermost scope is the compiled method itself: anything else is not this nmethod's.
  if (outermost != nm.method) return std::nullopt;
  return names;
}

}  // namespace vtctx::reader
