// Where a HotSpot JVM keeps, on each carrier, which Java thread it runs: the identity channel's
// recipe (target/identitySlot.h), found by name in what a stock JDK exposes and never guessed.
//
//   the JavaThread of an OS thread   libjvm's Thread::_thr_current (general-dynamic TLS; symbol
//                                     from libjvm's .symtab, module id from its own DTPMOD
//                                     relocation's GOT word)
//   JDK 24+   JavaThread::_monitor_owner_id (gHotSpotVMStructs): the mounted thread's id, exact
//             at every transition (HotSpot's monitors depend on it)
//   JDK 21-23 JavaThread::_vthread (gHotSpotVMStructs) -> the Thread object -> its tid field
//             (offset: libjvm's java_lang_Thread::_tid_offset), only under collectors that move
//             objects only at safepoints (G1, Parallel, Serial, Epsilon: docs/design.md,
//             "Channels"); ZGC and Shenandoah move them concurrently and are refused
// A JVM that lacks any of these is refused with one line saying what is missing.
#ifndef VTCTX_READER_JAVA_THREAD_LAYOUT_H_
#define VTCTX_READER_JAVA_THREAD_LAYOUT_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "target/identitySlot.h"
#include "target/procMaps.h"
#include "target/processMemory.h"
#include "target/targetProcess.h"

namespace vtctx::reader {

struct IdentityRecipe {
  vtctx_identity_recipe recipe{};
  std::string description;  // e.g. "JavaThread::_monitor_owner_id at +1312 (Java 25.0.3+9-LTS)"
};

// The recipe for the JVM whose mappings are `maps` (its held /proc directory `proc_dir`), with the
// thread index at `index`. Unimplemented (one line) when the JVM cannot be followed.
absl::StatusOr<IdentityRecipe> ResolveIdentityRecipe(const std::string& proc_dir,
                                                     const std::vector<Mapping>& maps,
                                                     MemoryReader& memory, uint64_t index);
// The same without the thread index (recipe.index 0): what the JVM itself must offer.
absl::StatusOr<IdentityRecipe> ResolveJavaThreadRecipe(const std::string& proc_dir,
                                                       const std::vector<Mapping>& maps,
                                                       MemoryReader& memory);
// OK if this reader could follow the identity channel in the held JVM `target` once a vtctx agent
// runs it there (before any agent is loaded: `--attach` chooses the channel by it); else why not.
absl::Status CheckIdentityFollowable(const TargetProcess& target, MemoryReader& memory);

// The channel to follow in the held `target`: identity if `identity` says so, carrier if it says
// not, else (nullopt) the writer's own as its process context names it (target/writerChannel.h).
// The carrier channel is a recipe of kind VTCTX_IDENTITY_NONE. Unimplemented (one line) when
// the identity channel is wanted and cannot be followed. `note`: a line for stderr, or "".
absl::StatusOr<IdentityRecipe> ChooseChannel(const TargetProcess& target, MemoryReader& memory,
                                             std::optional<bool> identity, std::string* note);

}  // namespace vtctx::reader

#endif  // VTCTX_READER_JAVA_THREAD_LAYOUT_H_
