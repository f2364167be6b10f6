// Classifies how a module accesses its exported `otel_thread_ctx_v1`, from the dynamic
// relocations that name it, and says which words of the live process finish the resolution.
//
//   TLSDESC          R_*_TLSDESC: descriptor {resolver, argument}; argument = static TLS offset
//                    or pointer to glibc's {module id, offset, generation}
//   general-dynamic  R_*_DTPMOD64 + R_*_DTPOFF64: GOT pair {module id, offset} (always via DTV)
//   initial-exec     R_*_TPOFF64: GOT word = static offset from the thread pointer
//   local-exec       the main executable with no relocation for it: offset from PT_TLS
#ifndef VTCTX_READER_TLS_MODEL_H_
#define VTCTX_READER_TLS_MODEL_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "target/arch.h"
#include "target/elfSymbols.h"

namespace vtctx::reader {

enum class AccessModel { kTlsDesc, kGeneralDynamic, kInitialExec, kLocalExec };

// "tlsdesc", "general-dynamic", "initial-exec", "local-exec" (the JSON `access_model` values).
absl::string_view AccessModelName(AccessModel model);

struct AccessPlan {
  AccessModel model = AccessModel::kTlsDesc;
  uint64_t got_vaddr = 0;  // link-time address of the word(s) the dynamic linker filled
  int64_t addend = 0;      // of the relocation used
  int64_t tp_offset = 0;   // local-exec only: final static offset, known from the file
};

// Chooses the access to follow. Several relocation kinds may name the symbol (translation units
// built differently); they all lead to the same slot, so the first of TLSDESC, general-dynamic,
// initial-exec is used. Errors (Unimplemented) say why a module cannot be read: wrong symbol type
// or size, foreign machine, or nothing names the symbol (-Bsymbolic, hidden or protected access).
absl::StatusOr<AccessPlan> PlanAccess(const ElfTlsExport& elf, bool is_main_executable,
                                      const ArchInfo& arch);

}  // namespace vtctx::reader

#endif  // VTCTX_READER_TLS_MODEL_H_
