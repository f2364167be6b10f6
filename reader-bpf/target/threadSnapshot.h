// Reads every thread's current context of a live process from user space, for `resolve`.
//
// Each thread is stopped (PTRACE_SEIZE + PTRACE_INTERRUPT) while its thread pointer, slot and
// record are read, then released, one thread at a time: the writer protocol only protects readers
// that interrupt the writing thread, so reading a RUNNING thread from another CPU could tear.
// A thread stopped in the middle of a rewrite shows valid == 0, which is the protocol's answer.
#ifndef VTCTX_READER_THREAD_SNAPSHOT_H_
#define VTCTX_READER_THREAD_SNAPSHOT_H_

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "target/identitySlot.h"
#include "target/processMemory.h"
#include "target/recordFormat.h"
#include "target/targetProcess.h"
#include "target/tlsSlot.h"

namespace vtctx::reader {

struct ThreadSnapshot {
  pid_t tid = 0;
  std::string name;  // /proc/<pid>/task/<tid>/comm
  uint64_t thread_pointer = 0;
  uint64_t slot = 0;  // 0 if the thread has no slot
  uint8_t status = VTCTX_CTX_NULL;
  uint64_t record = 0;
  vtctx_record_header header{};
  std::vector<uint8_t> attrs;
  std::string note;             // why the slot or record could not be read, if so
  uint64_t java_thread_id = 0;  // identity channel: the Java thread HotSpot says it runs

  ContextView View() const { return {status, record, header, attrs}; }
};

// Reads the context at `slot` (pointer, header, then attrs-data up to the OTEP bound) into `out`.
void ReadContextAt(uint64_t slot, MemoryReader& memory, ThreadSnapshot& out);
// The same from the record's address on (`record` non-zero).
void ReadRecordAt(uint64_t record, MemoryReader& memory, ThreadSnapshot& out);

// How long one thread may take to stop before it is listed unread: a thread of a hostile target
// can keep itself from stopping (in vfork() with a child that never execs).
inline constexpr double kThreadStopWaitS = 1.0;

// Snapshot of all threads of the held `target` (threads that exit meanwhile are left out). A
// thread already traced by someone else (a debugger, strace, another reader), or one that does
// not stop within kThreadStopWaitS, is listed unread, with a note; once `stop_budget_s` seconds
// have gone by, the threads left are listed unread too. Fails with NotFound / PermissionDenied as
// the resolver does. With `identity` (kind not VTCTX_IDENTITY_NONE) each thread's context is found
// on the identity channel (identityLookup.h) instead of through `recipe`.
absl::StatusOr<std::vector<ThreadSnapshot>> SnapshotThreads(const TargetProcess& target,
                                                            const vtctx_slot_recipe& recipe,
                                                            const vtctx_identity_recipe& identity,
                                                            MemoryReader& memory,
                                                            double stop_budget_s);

}  // namespace vtctx::reader

#endif  // VTCTX_READER_THREAD_SNAPSHOT_H_
