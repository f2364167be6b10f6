// The Java methods a JIT-compiled HotSpot frame stands for, inlined ones included, read from the
// JVM's own metadata (no JVMTI): the code blob holding an address (codeCacheView.h), its
// nmethod's PcDesc table and scopes data (scopeDecoding.h) and, for each scope, the Method* it
// names (methodNames.h). Everything is found by name in gHotSpotVMStructs; two nmethod layouts
// are known:
//   JDK 21:   CodeBlob::_code_begin, CompiledMethod::_method / _scopes_data_begin, nmethod's
//             _metadata_offset / _scopes_pcs_offset / _dependencies_offset from its header;
//   JDK 25:   CodeBlob::_code_offset / _mutable_data (relocations, then metadata), nmethod's
//             _immutable_data with _scopes_pcs_offset / _scopes_data_offset inside it.
// A JVM with neither is refused (one line).
//
// Meant to be read when sampling stops, while the JVM still runs: an nmethod is expanded only if
// the blob at the perf map's address is still an nmethod whose code begins there and whose
// method has the perf map's name; otherwise (freed, moved, replaced) its frames keep the perf
// map's name unexpanded and the nmethod is counted as refused. A Java method compiled again at
// the same address with the same name between a sample and the end is the case this cannot tell.
#ifndef VTCTX_READER_NMETHOD_SCOPES_H_
#define VTCTX_READER_NMETHOD_SCOPES_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hotspot/codeCacheView.h"
#include "hotspot/methodNames.h"
#include "hotspot/scopeDecoding.h"
#include "hotspot/vmStructs.h"
#include "target/processMemory.h"

namespace vtctx::reader {

// Where the fields NmethodScopes reads are, from gHotSpotVMStructs.
struct NmethodLayout {
  uint64_t header_size = 0;  // sizeof(nmethod): the header bytes read
  uint64_t blob_name = 0;
  std::optional<uint64_t> blob_kind;  // JDK 24+, with kind_nmethod
  int64_t kind_nmethod = 0;
  uint64_t method = 0;
  uint64_t scopes_pcs_offset = 0;
  bool immutable_data_layout = false;  // JDK 25 layout; else JDK 21
  // JDK 21.
  uint64_t code_begin = 0, scopes_data_begin = 0, metadata_offset = 0, dependencies_offset = 0;
  // JDK 25.
  uint64_t code_offset = 0, immutable_data = 0, immutable_data_size = 0, scopes_data_offset = 0,
           mutable_data = 0, mutable_data_size = 0, relocation_size = 0;
  // PcDesc.
  uint64_t pc_desc_size = 0, pc_desc_pc_offset = 0, pc_desc_scope_offset = 0;

  // FailedPrecondition naming the first field the tables lack.
  static absl::StatusOr<NmethodLayout> From(const VmStructs& vm);
};

// What happened to the nmethods asked about, for the summary line.
struct InlineCounts {
  uint64_t nmethods = 0;  // read and matching the perf map: their frames are expanded
  uint64_t refused = 0;   // gone, moved or replaced, or with unreadable or malformed metadata
  uint64_t not_java = 0;  // code blobs that are not nmethods (stubs, adapters, interpreter)
};

class NmethodScopes {
 public:
  // All three must outlive this.
  NmethodScopes(MemoryReader& memory, CodeCacheView& code, MethodNames& methods,
                const NmethodLayout& layout)
      : memory_(memory), code_(code), methods_(methods), layout_(layout) {}

  // The Java methods running at `pc` in the code the perf map names `name` from `code_begin`,
  // innermost first, the outermost being `name` itself. `return_address`: `pc` is a return
  // address (its PcDesc is the one at `pc` exactly); else the sampled pc (the first PcDesc after
  // it). nullopt: not expandable (counted once per nmethod in counts()).
  std::optional<std::vector<std::string>> MethodsAt(uint64_t code_begin, absl::string_view name,
                                                    uint64_t pc, bool return_address);
  const InlineCounts& counts() const { return counts_; }
  // Why the first refused nmethod was refused ("" if none was).
  const std::string& first_refusal() const { return first_refusal_; }

 private:
  struct Nmethod {
    bool usable = false;
    uint64_t method = 0;  // its Method*
    std::vector<PcDescEntry> pcs;
    std::vector<uint8_t> scopes;
    uint64_t metadata = 0;  // address of metadata_at(1)
    uint64_t metadata_count = 0;
  };
  absl::StatusOr<Nmethod> ReadNmethod(uint64_t code_begin, absl::string_view name);

  MemoryReader& memory_;
  CodeCacheView& code_;
  MethodNames& methods_;
  const NmethodLayout layout_;
  std::map<uint64_t, Nmethod> nmethods_;  // by code begin
  InlineCounts counts_;
  std::string first_refusal_;
};

}  // namespace vtctx::reader

#endif  // VTCTX_READER_NMETHOD_SCOPES_H_
