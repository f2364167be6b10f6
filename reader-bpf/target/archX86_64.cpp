// x86-64 (TLS variant II): the thread pointer is fsbase and points at the TCB; static TLS blocks
// sit below it, so static offsets are negative. glibc's tcbhead_t starts {tcb, dtv, self}, so the
// DTV pointer is at fsbase + 8, and DTV entries are dtv_t unions of 16 bytes.
#include <asm/prctl.h>
#include <elf.h>
#include <sys/ptrace.h>
#include <sys/user.h>

#include <cerrno>

#include "target/arch.h"
#include "target/errnoStatus.h"

namespace vtctx::reader {
namespace {

uint64_t AlignUp(uint64_t value, uint64_t align) {
  return align <= 1 ? value : (value + align - 1) / align * align;
}

// glibc _dl_determine_tlsoffset for the first module with TLS_TCB_AT_TP, which is what the
// static linker's local-exec offsets assume: the block ends at the thread pointer, rounded so
// the block start keeps the segment's alignment phase (firstbyte).
// Inputs are bounded by PlanAccess (memsz, align, value < 2^31), so nothing overflows.
int64_t ExecutableTpOffset(const TlsSegment& tls, uint64_t symbol_value) {
  const uint64_t align = tls.align == 0 ? 1 : tls.align;
  const uint64_t firstbyte = (-(tls.vaddr & (align - 1))) & (align - 1);
  const uint64_t block_offset = AlignUp(tls.memsz - firstbyte, align) + firstbyte;
  return static_cast<int64_t>(symbol_value - block_offset);
}

bool PlausibleStaticOffset(int64_t offset) { return offset < 0 && offset >= -(int64_t{1} << 31); }

const ArchInfo kX86_64 = {
    "x86_64",
    EM_X86_64,
    {R_X86_64_TLSDESC, R_X86_64_DTPMOD64, R_X86_64_DTPOFF64, R_X86_64_TPOFF64},
    8,
    16,
    ExecutableTpOffset,
    PlausibleStaticOffset,
};

}  // namespace

const ArchInfo& HostArch() { return kX86_64; }

absl::StatusOr<uint64_t> ReadThreadPointer(pid_t tid) {
  // PTRACE_ARCH_PRCTL reads the saved fsbase of the stopped thread (same as regs.fs_base).
  unsigned long fsbase = 0;
  if (ptrace(static_cast<__ptrace_request>(PTRACE_ARCH_PRCTL), tid, &fsbase, ARCH_GET_FS) != 0) {
    return ErrnoStatus(errno, "ptrace(ARCH_GET_FS)");
  }
  return static_cast<uint64_t>(fsbase);
}

}  // namespace vtctx::reader
