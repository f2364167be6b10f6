#include "hotspot/nmethodScopes.h"

#include <cstring>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "hotspot/hotspotNames.h"
#include "target/untrustedText.h"

namespace vtctx::reader {
namespace {

constexpr uint64_t kMaxHeaders = 4096;          // sizeof(nmethod) is 224 (JDK 25), 344 (21)
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

// Non-zero address `a + b`, refusing wrap-around.
std::optional<uint64_t> Add(uint64_t a, int64_t b) {
  const uint64_t sum = a + static_cast<uint64_t>(b);
  if ((b >= 0 && sum < a) || (b < 0 && sum > a)) return std::nullopt;
  return sum;
}

}  // namespace

absl::StatusOr<NmethodLayout> NmethodLayout::From(const VmStructs& vm) {
  NmethodLayout l;
  l.immutable_data_layout = vm.Offset("nmethod", "_immutable_data").has_value();
  absl::Status s = vm.Find({VTCTX_NMETHOD_NAMES(VTCTX_FIND_ROW)});
  if (s.ok()) {
    s = l.immutable_data_layout ? vm.Find({VTCTX_NMETHOD_NAMES_JDK25(VTCTX_FIND_ROW)})
                                : vm.Find({VTCTX_NMETHOD_NAMES_JDK21(VTCTX_FIND_ROW)});
  }
  if (!s.ok())
    return absl::FailedPreconditionError(
        absl::StrCat(s.message(), " (JDK 21 and 25 nmethod layouts known)"));
  if (std::optional<uint64_t> kind = vm.Offset("CodeBlob", "_kind")) {
    const std::optional<int64_t> nmethod = vm.Constant("CodeBlobKind::Nmethod");
    if (!nmethod) {
      return absl::FailedPreconditionError("HotSpot's VMStructs do not name CodeBlobKind::Nmethod");
    }
    l.blob_kind = kind;
    l.kind_nmethod = *nmethod;
  }
  if (l.header_size > kMaxHeaders)
    return absl::FailedPreconditionError("implausible sizeof(nmethod)");
  if (l.pc_desc_size < 8 || l.pc_desc_pc_offset + 4 > l.pc_desc_size ||
      l.pc_desc_scope_offset + 4 > l.pc_desc_size) {
    return absl::FailedPreconditionError("HotSpot's PcDesc is not as expected");
  }
  return l;
}

absl::StatusOr<NmethodScopes::Nmethod> NmethodScopes::ReadNmethod(uint64_t code_begin,
                                                                  absl::string_view name) {
  const NmethodLayout& l = layout_;
  const std::optional<uint64_t> blob = code_.BlobStart(code_begin);
  if (!blob) return absl::NotFoundError("no code blob holds it now");
  std::vector<uint8_t> h(l.header_size);
  if (absl::Status s = memory_.Read(*blob, h.data(), h.size()); !s.ok()) return s;
  Nmethod nm;
  const std::optional<uint64_t> name_at = FieldAt<uint64_t>(h, l.blob_name);
  if (!name_at) return absl::InvalidArgumentError("nmethod header too small");
  absl::StatusOr<std::string> blob_name = memory_.ReadCString(*name_at, kMaxBlobName);
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
  absl::StatusOr<std::string> method_name = methods_.Name(*method);
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
  if (absl::Status s = memory_.Read(*pcs_begin, pcs.data(), pcs.size()); !s.ok()) return s;
  if (absl::Status s = memory_.Read(*scopes_begin, nm.scopes.data(), nm.scopes.size()); !s.ok())
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
  // innermost frame, stopped anywhere, by the first PcDesc at or after its pc. A PcDesc at the
  // sampled pc itself counts, as in async-profiler's lookup (AsyncGetCallTrace's pc + 1 skips
  // it and names the next instruction's scope: an inlined callee's samples went to its caller's
  // loop, streams overlap with async-profiler 0.76 against 0.86-0.92).
  const PcDescEntry* desc =
      FindPcDesc(nm.pcs, static_cast<int64_t>(offset), /*approximate=*/!return_address);
  if (desc == nullptr || desc->scope_offset < 0) return std::nullopt;
  absl::StatusOr<std::vector<ScopeRecord>> chain =
      DecodeScopeChain(nm.scopes, static_cast<uint32_t>(desc->scope_offset));
  if (!chain.ok() || chain->empty()) return std::nullopt;
  std::vector<std::string> names;
  uint64_t outermost = 0;
  for (const ScopeRecord& r : *chain) {
    if (r.method_index == 0 || r.method_index > nm.metadata_count) return std::nullopt;
    absl::StatusOr<uint64_t> method =
        memory_.ReadU64(nm.metadata + 8u * (uint64_t{r.method_index} - 1));
    if (!method.ok()) return std::nullopt;
    absl::StatusOr<std::string> method_name = methods_.Name(*method);
    if (!method_name.ok()) return std::nullopt;
    names.push_back(*std::move(method_name));
    outermost = *method;
  }
  // The outermost scope is the compiled method itself: anything else is not this nmethod's.
  if (outermost != nm.method) return std::nullopt;
  return names;
}

}  // namespace vtctx::reader
