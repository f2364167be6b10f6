// The identity recipe (identitySlot.h) followed from user space, for `resolve`: the steps of
// commands/identityRead.bpf.h through a memory reader, for a thread whose thread pointer is known
// (stopped: threadSnapshot.h).
#ifndef VTCTX_READER_IDENTITY_LOOKUP_H_
#define VTCTX_READER_IDENTITY_LOOKUP_H_

#include <cstdint>
#include <string>

#include "target/identitySlot.h"
#include "target/processMemory.h"
#include "vtctx/threadIndexLookup.h"

namespace vtctx::reader {

struct IdentityFollow {
  uint8_t status = VTCTX_CTX_NULL;  // OK: `record` is the mounted thread's (to be confirmed)
  uint64_t java_thread_id = 0;      // the mounted Java thread's id, 0 if not found
  uint64_t record = 0;
  std::string note;  // why not, when a read failed
  protocol::IndexHit hit;
  uint64_t handle = 0, oop = 0;  // VTHREAD_OOP
};

IdentityFollow FollowIdentity(const vtctx_identity_recipe& recipe, uint64_t thread_pointer,
                              MemoryReader& memory);

// After the record's reads: true if it is still the mounted thread's.
bool ConfirmIdentity(const vtctx_identity_recipe& recipe, const IdentityFollow& follow,
                     MemoryReader& memory);

}  // namespace vtctx::reader

#endif  // VTCTX_READER_IDENTITY_LOOKUP_H_
