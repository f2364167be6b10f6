// Architecture-specific facts behind one interface: relocation numbers, TLS layout relative to the
// thread pointer (glibc), and reading a stopped thread's thread pointer with ptrace.
// Implemented by archX86_64.cpp (tested) and archAarch64.cpp (written to the AArch64 ELF/glibc
// ABI, not built or tested on this x86-64 project machine); CMake compiles the host's one.
#ifndef VTCTX_READER_ARCH_H_
#define VTCTX_READER_ARCH_H_

#include <sys/types.h>

#include <cstdint>

#include "absl/status/statusor.h"
#include "target/elfSymbols.h"

namespace vtctx::reader {

struct TlsRelocTypes {
  uint32_t tlsdesc;  // TLS descriptor {resolver, argument}
  uint32_t dtpmod;   // module id (legacy general-dynamic)
  uint32_t dtpoff;   // offset inside the module block (legacy general-dynamic)
  uint32_t tpoff;    // offset from the thread pointer (initial-exec)
};

struct ArchInfo {
  const char* name;
  uint16_t elf_machine;  // EM_*
  TlsRelocTypes relocs;
  int64_t dtv_ptr_offset;   // the DTV pointer is stored at tp + this
  uint32_t dtv_entry_size;  // bytes per DTV entry (glibc)
  // Thread-pointer offset of the byte at `symbol_value` of the main executable's TLS block
  // (module 1, placed first by the static linker and glibc; used for local-exec).
  int64_t (*executable_tp_offset)(const TlsSegment& tls, uint64_t symbol_value);
  // Whether a resolved static TLS offset has the sign/range this architecture produces.
  bool (*plausible_static_offset)(int64_t offset);
};

// The architecture this binary was built for (the only one it can inspect).
const ArchInfo& HostArch();

// Thread pointer of `tid`, which must be in a ptrace-stop of ours.
absl::StatusOr<uint64_t> ReadThreadPointer(pid_t tid);

}  // namespace vtctx::reader

#endif  // VTCTX_READER_ARCH_H_
