// libFuzzer target for the reader's ELF handling: parsing (.dynsym lookup, relocations, program
// headers), access-model classification, and the interpretation of the words the dynamic linker
// would have written (read here from the input itself); and the input as an .eh_frame section
// (cfiTable.h: a target's file names native frames' callers). Any input must give a Status, never
// a crash, hang or sanitizer report.
#include <cstddef>
#include <cstdint>

#include "inputMemory.h"
#include "target/cfiTable.h"
#include "target/elfSymbols.h"
#include "target/procMaps.h"
#include "target/tlsModel.h"
#include "target/tlsResolver.h"
#include "vtctx/record.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vtctx::reader;
  if (absl::StatusOr<CfiTable> cfi = CfiTable::Parse({data, size}, 0x10000); cfi.ok()) {
    const uint8_t stack[64] = {};
    for (uint64_t pc : {uint64_t{0x10000}, uint64_t{0x10040}, uint64_t{0x20000}}) {
      if (const CfiRow* row = cfi->Find(pc)) {
        (void)CfiCaller(*row, {pc, 0x7f0000000010, 0x7f0000000020}, {0x7f0000000000, stack});
      }
    }
  }
  absl::StatusOr<ElfTlsExport> elf = ReadTlsExportFromMemory({data, size}, VTCTX_TLS_SYMBOL);
  if (!elf.ok()) return 0;
  // Load bias against a plausible mapping of the file.
  MappedFile file{"/fuzz", 1, 1, 1, {{0x10000, 0x20000, 0, 1, 1, 1, true, true, "/fuzz"}}};
  (void)LoadBias(file, elf->loads);
  for (bool executable : {false, true}) {
    absl::StatusOr<AccessPlan> plan = PlanAccess(*elf, executable, HostArch());
    if (!plan.ok()) continue;
    InputMemory memory(data, size);
    absl::StatusOr<vtctx_slot_recipe> recipe = ResolveRecipe(*elf, *plan, 0, memory, HostArch());
    if (recipe.ok()) (void)SlotAddress(*recipe, 8, memory);
  }
  return 0;
}
