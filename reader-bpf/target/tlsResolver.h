// Resolves `otel_thread_ctx_v1` in a live process: every mapped ELF that defines it in .dynsym,
// how it is accessed, and the recipe (static offset, or DTV module id + offset) that locates each
// thread's slot from its thread pointer. Needs no ptrace: only /proc/<pid>/maps, the mapped files
// and reads of the words the dynamic linker filled in.
#ifndef VTCTX_READER_TLS_RESOLVER_H_
#define VTCTX_READER_TLS_RESOLVER_H_

#include <sys/types.h>

#include <cstdint>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "absl/status/statusor.h"
#include "target/arch.h"
#include "target/processMemory.h"
#include "target/tlsModel.h"
#include "target/tlsSlot.h"

namespace vtctx::reader {

struct ModuleResolution {
  std::string path;
  uint64_t load_bias = 0;
  bool main_executable = false;
  AccessModel model = AccessModel::kTlsDesc;
  vtctx_slot_recipe recipe{};
};

// Finishes a plan with the words the dynamic linker wrote (at load_bias + plan.got_vaddr).
// Unavailable when they are not written yet (retry), Unimplemented when they make no sense.
absl::StatusOr<vtctx_slot_recipe> ResolveRecipe(const ElfTlsExport& elf, const AccessPlan& plan,
                                                uint64_t load_bias, MemoryReader& memory,
                                                const ArchInfo& arch);

// Resolves every module of `pid` that exports the symbol. Errors, each distinct:
//   NotFound            no such process
//   PermissionDenied    not allowed to inspect it
//   FailedPrecondition  nothing exports the symbol ("is the agent loaded?")
//   Unavailable         the descriptor is not resolved yet (retry)
//   Unimplemented       exported, but through an access model we cannot follow
// Modules that fail while another one resolves are reported in `warnings`.
struct Resolution {
  std::vector<ModuleResolution> modules;  // at least one
  std::vector<std::string> warnings;
};
// Mapped files (device, inode) found not to export the symbol. Given one, ResolveProcess reads
// only files it does not hold yet and adds those without the symbol: polling a process for the
// agent costs a maps read and the ELF reads of newly mapped files.
using FilesWithoutSymbol = std::set<std::tuple<uint32_t, uint32_t, uint64_t>>;
absl::StatusOr<Resolution> ResolveProcess(pid_t pid, MemoryReader& memory,
                                          FilesWithoutSymbol* skip = nullptr);

// One-line description of a module's resolution, e.g.
// "/x/libvtctx.so: tlsdesc, static TLS at tp-152".
std::string DescribeModule(const ModuleResolution& module);

// Turns an errno-based status from /proc or ptrace into the user-facing process errors.
absl::Status ProcessAccessError(pid_t pid, const absl::Status& cause);

// The thread's slot address, by the same steps as the BPF programs (tlsSlot.bpf.h). NotFound if
// the thread has no slot yet (dynamic TLS not allocated in it).
absl::StatusOr<uint64_t> SlotAddress(const vtctx_slot_recipe& recipe, uint64_t thread_pointer,
                                     MemoryReader& memory);

}  // namespace vtctx::reader

#endif  // VTCTX_READER_TLS_RESOLVER_H_
