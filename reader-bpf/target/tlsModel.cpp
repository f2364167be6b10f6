#include "target/tlsModel.h"

#include <elf.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "vtctx/record.h"

namespace vtctx::reader {
namespace {

constexpr uint64_t kMaxTlsBlock = uint64_t{1} << 30;  // 1 GiB
constexpr uint64_t kMaxTlsAlign = uint64_t{1} << 20;

}  // namespace

absl::string_view AccessModelName(AccessModel model) {
  switch (model) {
    case AccessModel::kTlsDesc:
      return "tlsdesc";
    case AccessModel::kGeneralDynamic:
      return "general-dynamic";
    case AccessModel::kInitialExec:
      return "initial-exec";
    case AccessModel::kLocalExec:
      return "local-exec";
  }
  return "unknown";
}

absl::StatusOr<AccessPlan> PlanAccess(const ElfTlsExport& elf, bool is_main_executable,
                                      const ArchInfo& arch) {
  if (!elf.symbol.has_value()) {
    return absl::NotFoundError(VTCTX_TLS_SYMBOL " is not defined in .dynsym");
  }
  const TlsSymbol& sym = *elf.symbol;
  if (elf.machine != arch.elf_machine) {
    return absl::UnimplementedError(
        absl::StrCat("ELF machine ", elf.machine, " is not this reader's (", arch.name, ")"));
  }
  if (sym.type != STT_TLS) {
    return absl::UnimplementedError(
        absl::StrCat(VTCTX_TLS_SYMBOL " has symbol type ", sym.type, ", not STT_TLS"));
  }
  if (sym.size != 8) {
    return absl::UnimplementedError(
        absl::StrCat(VTCTX_TLS_SYMBOL " has size ", sym.size, ", not 8 (a pointer)"));
  }

  const SymbolReloc* desc = nullptr;
  const SymbolReloc* dtpmod = nullptr;
  const SymbolReloc* tpoff = nullptr;
  for (const SymbolReloc& r : elf.relocs) {
    if (r.type == arch.relocs.tlsdesc && desc == nullptr) desc = &r;
    if (r.type == arch.relocs.dtpmod && dtpmod == nullptr) dtpmod = &r;
    if (r.type == arch.relocs.tpoff && tpoff == nullptr) tpoff = &r;
  }
  if (desc != nullptr) return AccessPlan{AccessModel::kTlsDesc, desc->offset, desc->addend, 0};
  // The DTPOFF word follows the module-id word (the GOT pair is a tls_index); it is either
  // relocated by R_*_DTPOFF64 or holds the link-time offset, so reading it covers both.
  if (dtpmod != nullptr) {
    return AccessPlan{AccessModel::kGeneralDynamic, dtpmod->offset, dtpmod->addend, 0};
  }
  if (tpoff != nullptr)
    return AccessPlan{AccessModel::kInitialExec, tpoff->offset, tpoff->addend, 0};

  if (is_main_executable) {
    if (!elf.tls.has_value()) {
      return absl::UnimplementedError("executable defines a TLS symbol but has no PT_TLS segment");
    }
    // Real TLS blocks are small; bounding them keeps the offset arithmetic exact.
    const uint64_t align = elf.tls->align;
    if (elf.tls->memsz >= kMaxTlsBlock || align > kMaxTlsAlign || (align & (align - 1)) != 0) {
      return absl::UnimplementedError(
          absl::StrCat("implausible PT_TLS (", elf.tls->memsz, " bytes, alignment ", align, ")"));
    }
    if (sym.value >= elf.tls->memsz) {
      return absl::UnimplementedError(absl::StrCat(VTCTX_TLS_SYMBOL " value ", sym.value,
                                                   " lies outside PT_TLS (", elf.tls->memsz,
                                                   " bytes)"));
    }
    return AccessPlan{AccessModel::kLocalExec, 0, 0,
                      arch.executable_tp_offset(*elf.tls, sym.value)};
  }
  return absl::UnimplementedError(
      "unsupported access model: no dynamic relocation names " VTCTX_TLS_SYMBOL
      " (accessed through a local alias or local-dynamic? OTEP 4947 readers need accesses that "
      "name the symbol)");
}

}  // namespace vtctx::reader
