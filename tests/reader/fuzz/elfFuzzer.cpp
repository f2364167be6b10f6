// libFuzzer target for the reader's ELF handling: parsing (.dynsym lookup, relocations, program
// headers), access-model classification, and the interpretation of the words the dynamic linker
// would have written (read here from the input itself). Any input must give a Status, never a
// crash, hang or sanitizer report.
#include <cstddef>
#include <cstdint>

#include "inputMemory.h"
#include "target/elfSymbols.h"
#include "target/procMaps.h"
#include "target/tlsModel.h"
#include "target/tlsResolver.h"
#include "vtctx/record.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vtctx::reader;
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
