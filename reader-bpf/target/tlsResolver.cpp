#include "target/tlsResolver.h"

#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "target/elfSymbols.h"
#include "target/procMaps.h"
#include "target/untrustedText.h"
#include "vtctx/record.h"

namespace vtctx::reader {
namespace {

constexpr uint64_t kMaxModuleId = 1u << 20;     // far above any real DTV
constexpr uint64_t kTlsDtvUnallocated = ~0ull;  // glibc TLS_DTV_UNALLOCATED ((void *) -1)

absl::Status NotResolvedYet(absl::string_view what) {
  return absl::UnavailableError(
      absl::StrCat("TLS access to " VTCTX_TLS_SYMBOL " not resolved yet (", what, "); retry"));
}

absl::StatusOr<vtctx_slot_recipe> StaticRecipe(int64_t tp_offset) {
  vtctx_slot_recipe r{};
  r.kind = VTCTX_SLOT_STATIC;
  r.tp_offset = tp_offset;
  return r;
}

vtctx_slot_recipe DtvRecipe(const ArchInfo& arch, uint64_t module_id, uint64_t offset,
                            uint64_t min_generation) {
  vtctx_slot_recipe r{};
  r.kind = VTCTX_SLOT_DTV;
  r.dtv_entry_size = arch.dtv_entry_size;
  r.dtv_ptr_offset = arch.dtv_ptr_offset;
  r.module_id = module_id;
  r.module_offset = offset;
  r.min_generation = min_generation;
  return r;
}

absl::Status CheckModuleOffset(const ElfTlsExport& elf, uint64_t module_id, uint64_t offset) {
  if (module_id == 0) return NotResolvedYet("module id 0");
  if (module_id >= kMaxModuleId) {
    return absl::UnimplementedError(absl::StrCat("implausible TLS module id ", module_id));
  }
  if (elf.tls.has_value() && (offset > elf.tls->memsz || elf.tls->memsz - offset < 8)) {
    return absl::UnimplementedError(absl::StrCat("TLS offset ", offset, " outside the module's ",
                                                 elf.tls->memsz, "-byte block"));
  }
  return absl::OkStatus();
}

// Identity of /proc/<pid>/exe, to recognise the main executable among the mapped files.
struct FileId {
  uint32_t major = 0, minor = 0;
  uint64_t inode = 0;
};

std::optional<FileId> ExecutableId(pid_t pid) {
  struct stat st;
  if (stat(absl::StrCat("/proc/", pid, "/exe").c_str(), &st) != 0) return std::nullopt;
  return FileId{major(st.st_dev), minor(st.st_dev), st.st_ino};
}

// Opens a mapped file through the kernel's link to the inode the process mapped: works for
// deleted files and other mount namespaces (needs CAP_SYS_ADMIN), and never follows a path the
// process names (in another mount namespace the same path is another file, or a symlink that
// resolves in the reader's root).
absl::StatusOr<ElfTlsExport> ReadMappedElf(pid_t pid, const MappedFile& file) {
  const Mapping& first = file.mappings.front();
  return ReadTlsExportFromFile(
      absl::StrFormat("/proc/%d/map_files/%x-%x", pid, first.start, first.end), VTCTX_TLS_SYMBOL);
}

}  // namespace

absl::StatusOr<vtctx_slot_recipe> ResolveRecipe(const ElfTlsExport& elf, const AccessPlan& plan,
                                                uint64_t load_bias, MemoryReader& memory,
                                                const ArchInfo& arch) {
  const uint64_t word = load_bias + plan.got_vaddr;
  switch (plan.model) {
    case AccessModel::kLocalExec:
      return StaticRecipe(plan.tp_offset);

    case AccessModel::kInitialExec: {
      absl::StatusOr<uint64_t> tpoff = memory.ReadU64(word);
      if (!tpoff.ok()) return tpoff.status();
      if (*tpoff == 0) return NotResolvedYet("TPOFF GOT entry is 0");
      // Unsigned arithmetic: the addend comes from the file and may be anything.
      const auto offset = static_cast<int64_t>(*tpoff - static_cast<uint64_t>(plan.addend));
      if (!arch.plausible_static_offset(offset)) {
        return absl::UnimplementedError(absl::StrCat("implausible initial-exec offset ", offset));
      }
      return StaticRecipe(offset);
    }

    case AccessModel::kGeneralDynamic: {
      uint64_t pair[2];  // tls_index {module, offset}
      if (absl::Status s = memory.Read(word, pair, sizeof pair); !s.ok()) return s;
      const uint64_t offset = pair[1] - static_cast<uint64_t>(plan.addend);
      if (absl::Status s = CheckModuleOffset(elf, pair[0], offset); !s.ok()) return s;
      return DtvRecipe(arch, pair[0], offset, 0);
    }

    case AccessModel::kTlsDesc: {
      uint64_t desc[2];  // {resolver function, argument}
      if (absl::Status s = memory.Read(word, desc, sizeof desc); !s.ok()) return s;
      if (desc[0] == 0) return NotResolvedYet("TLS descriptor has no resolver");
      const int64_t arg = static_cast<int64_t>(desc[1]);
      if (arg >= -(int64_t{1} << 31) && arg < (int64_t{1} << 31)) {
        // Static TLS: the resolver returns the argument, an offset from the thread pointer.
        const auto offset = static_cast<int64_t>(desc[1] - static_cast<uint64_t>(plan.addend));
        if (!arch.plausible_static_offset(offset)) {
          return absl::UnimplementedError(
              absl::StrCat("TLS descriptor argument ", arg, " is no static offset"));
        }
        return StaticRecipe(offset);
      }
      // Dynamic TLS: the argument points at glibc's tlsdesc_dynamic_arg
      // {tls_index {module, offset}, generation}.
      uint64_t dyn[3];
      if (absl::Status s = memory.Read(desc[1], dyn, sizeof dyn); !s.ok()) {
        return absl::UnimplementedError(absl::StrFormat(
            "TLS descriptor argument 0x%x is neither a static offset nor readable (%s)", desc[1],
            s.message()));
      }
      if (absl::Status s = CheckModuleOffset(elf, dyn[0], dyn[1]); !s.ok()) return s;
      return DtvRecipe(arch, dyn[0], dyn[1], dyn[2]);
    }
  }
  return absl::InternalError("unknown access model");
}

std::string DescribeModule(const ModuleResolution& m) {
  std::string where;
  if (m.recipe.kind == VTCTX_SLOT_STATIC) {
    where = absl::StrFormat("static TLS at tp%+d", m.recipe.tp_offset);
  } else {
    where = absl::StrFormat("dynamic TLS, DTV module %d offset %d", m.recipe.module_id,
                            m.recipe.module_offset);
  }
  return absl::StrCat(Printable(m.path, 4096), ": ", AccessModelName(m.model), ", ", where);
}

absl::Status ProcessAccessError(pid_t pid, const absl::Status& cause) {
  if (absl::IsNotFound(cause) || (kill(pid, 0) != 0 && errno == ESRCH)) {
    return absl::NotFoundError(absl::StrCat("no such process: ", pid));
  }
  if (absl::IsPermissionDenied(cause)) {
    return absl::PermissionDeniedError(
        absl::StrCat("no permission to inspect pid ", pid,
                     " (run as root or with CAP_SYS_PTRACE): ", cause.message()));
  }
  return cause;
}

absl::StatusOr<Resolution> ResolveProcess(pid_t pid, MemoryReader& memory,
                                          FilesWithoutSymbol* skip) {
  absl::StatusOr<std::vector<Mapping>> maps = ReadMaps(pid);
  if (!maps.ok()) return ProcessAccessError(pid, maps.status());
  const std::optional<FileId> exe = ExecutableId(pid);
  const ArchInfo& arch = HostArch();

  Resolution result;
  absl::Status first_failure;
  for (const MappedFile& file : GroupMappedFiles(*maps)) {
    const auto id = std::make_tuple(file.dev_major, file.dev_minor, file.inode);
    if (skip != nullptr && skip->contains(id)) continue;
    absl::StatusOr<ElfTlsExport> elf = ReadMappedElf(pid, file);
    if (!elf.ok()) {
      if (absl::IsPermissionDenied(elf.status())) return ProcessAccessError(pid, elf.status());
      // Not an ELF (data files, archives): cannot export anything.
      if (skip != nullptr && absl::IsInvalidArgument(elf.status())) skip->insert(id);
      continue;
    }
    if (!elf->symbol.has_value()) {
      if (skip != nullptr) skip->insert(id);
      continue;
    }
    const bool is_exe = exe.has_value() && exe->inode == file.inode &&
                        exe->major == file.dev_major && exe->minor == file.dev_minor;

    absl::Status failure;
    const std::optional<uint64_t> bias = LoadBias(file, elf->loads);
    absl::StatusOr<AccessPlan> plan = PlanAccess(*elf, is_exe, arch);
    if (!bias.has_value()) {
      failure = absl::UnavailableError("its load segments are not mapped (yet); retry");
    } else if (!plan.ok()) {
      failure = plan.status();
    } else {
      absl::StatusOr<vtctx_slot_recipe> recipe = ResolveRecipe(*elf, *plan, *bias, memory, arch);
      if (recipe.ok()) {
        result.modules.push_back({file.path, *bias, is_exe, plan->model, *recipe});
        continue;
      }
      failure = recipe.status();
    }
    failure = absl::Status(failure.code(),
                           absl::StrCat(Printable(file.path, 4096), ": ", failure.message()));
    result.warnings.push_back(std::string(failure.message()));
    if (first_failure.ok()) first_failure = failure;
  }

  if (!result.modules.empty()) return result;
  if (!first_failure.ok()) return first_failure;
  if (kill(pid, 0) != 0 && errno == ESRCH) {
    return absl::NotFoundError(absl::StrCat("no such process: ", pid));
  }
  return absl::FailedPreconditionError(absl::StrCat("pid ", pid,
                                                    " does not export " VTCTX_TLS_SYMBOL
                                                    " from any mapped ELF (is the agent loaded?)"));
}

absl::StatusOr<uint64_t> SlotAddress(const vtctx_slot_recipe& recipe, uint64_t thread_pointer,
                                     MemoryReader& memory) {
  if (recipe.kind == VTCTX_SLOT_STATIC) {
    return thread_pointer + static_cast<uint64_t>(recipe.tp_offset);
  }
  if (recipe.kind != VTCTX_SLOT_DTV) return absl::InternalError("empty slot recipe");
  absl::StatusOr<uint64_t> dtv =
      memory.ReadU64(thread_pointer + static_cast<uint64_t>(recipe.dtv_ptr_offset));
  if (!dtv.ok()) return dtv.status();
  absl::StatusOr<uint64_t> length = memory.ReadU64(*dtv - recipe.dtv_entry_size);
  if (!length.ok()) return length.status();
  if (recipe.module_id > *length) {
    return absl::NotFoundError(
        absl::StrCat("DTV of ", *length, " entries has no module ", recipe.module_id, " yet"));
  }
  if (recipe.min_generation != 0) {
    absl::StatusOr<uint64_t> generation = memory.ReadU64(*dtv);
    if (!generation.ok()) return generation.status();
    if (*generation < recipe.min_generation) {
      return absl::NotFoundError(
          absl::StrCat("DTV generation ", *generation, " older than ", recipe.min_generation));
    }
  }
  absl::StatusOr<uint64_t> block = memory.ReadU64(*dtv + recipe.module_id * recipe.dtv_entry_size);
  if (!block.ok()) return block.status();
  if (*block == 0 || *block == kTlsDtvUnallocated) {
    return absl::NotFoundError("TLS block not allocated in this thread yet");
  }
  return *block + recipe.module_offset;
}

}  // namespace vtctx::reader
