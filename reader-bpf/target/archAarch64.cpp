// AArch64 (TLS variant I): the thread pointer is TPIDR_EL0 and points at the 16-byte TCB
// {dtv, private}; static TLS blocks follow it, so static offsets are positive and the DTV pointer
// is at tp + 0. Written to the AArch64 ELF TLS ABI and glibc; NOT built or tested on the x86-64
// project machine (CMake compiles it only on aarch64 hosts).
#include <elf.h>
#include <sys/ptrace.h>
#include <sys/uio.h>

#include <cerrno>

#include "target/arch.h"
#include "target/errnoStatus.h"

namespace vtctx::reader {
namespace {

constexpr uint64_t kTcbSize = 16;

uint64_t AlignUp(uint64_t value, uint64_t align) {
  return align <= 1 ? value : (value + align - 1) / align * align;
}

// glibc _dl_determine_tlsoffset for the first module with TLS_DTV_AT_TP: the block starts after
// the TCB at the first address with the segment's alignment phase.
int64_t ExecutableTpOffset(const TlsSegment& tls, uint64_t symbol_value) {
  const uint64_t align = tls.align == 0 ? 1 : tls.align;
  const uint64_t firstbyte = (-(tls.vaddr & (align - 1))) & (align - 1);
  uint64_t off = AlignUp(kTcbSize, align);
  if (off - kTcbSize < firstbyte) off += align;
  return static_cast<int64_t>(off - firstbyte + symbol_value);  // bounded by PlanAccess
}

bool PlausibleStaticOffset(int64_t offset) {
  return offset >= static_cast<int64_t>(kTcbSize) && offset < (int64_t{1} << 31);
}

const ArchInfo kAarch64 = {
    "aarch64",
    EM_AARCH64,
    {R_AARCH64_TLSDESC, R_AARCH64_TLS_DTPMOD, R_AARCH64_TLS_DTPREL, R_AARCH64_TLS_TPREL},
    0,
    16,
    ExecutableTpOffset,
    PlausibleStaticOffset,
};

}  // namespace

const ArchInfo& HostArch() { return kAarch64; }

absl::StatusOr<uint64_t> ReadThreadPointer(pid_t tid) {
  uint64_t tpidr = 0;
  iovec iov{&tpidr, sizeof tpidr};
  if (ptrace(PTRACE_GETREGSET, tid, NT_ARM_TLS, &iov) != 0) {
    return ErrnoStatus(errno, "ptrace(GETREGSET, NT_ARM_TLS)");
  }
  return tpidr;
}

}  // namespace vtctx::reader
