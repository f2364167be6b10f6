#include "target/identityLookup.h"

#include "absl/strings/str_cat.h"
#include "target/tlsResolver.h"

namespace vtctx::reader {
namespace {

auto Reader(MemoryReader& memory) {
  return [&memory](uint64_t at, void* out, size_t n) { return memory.Read(at, out, n).ok(); };
}

}  // namespace

IdentityFollow FollowIdentity(const vtctx_identity_recipe& recipe, uint64_t thread_pointer,
                              MemoryReader& memory) {
  IdentityFollow out;
  absl::StatusOr<uint64_t> slot = SlotAddress(recipe.thread_slot, thread_pointer, memory);
  if (!slot.ok()) {
    out.status = absl::IsNotFound(slot.status()) ? VTCTX_CTX_NO_JAVA_THREAD : VTCTX_CTX_FAULT;
    out.note = std::string(slot.status().message());
    return out;
  }
  absl::StatusOr<uint64_t> thread = memory.ReadU64(*slot);
  if (!thread.ok() || *thread == 0) {
    out.status = thread.ok() ? VTCTX_CTX_NO_JAVA_THREAD : VTCTX_CTX_FAULT;
    return out;
  }
  // Only a JavaThread holds this word there (identitySlot.h).
  absl::StatusOr<uint64_t> word = memory.ReadU64(*thread + recipe.java_thread_word_offset);
  if (!word.ok() || *word != recipe.java_thread_word) {
    out.status = VTCTX_CTX_NO_JAVA_THREAD;
    return out;
  }
  absl::StatusOr<uint64_t> id = absl::InternalError("unknown identity kind");
  if (recipe.kind == VTCTX_IDENTITY_OWNER_ID) {
    id = memory.ReadU64(*thread + recipe.owner_id_offset);
  } else if (recipe.kind == VTCTX_IDENTITY_VTHREAD_OOP) {
    absl::StatusOr<uint64_t> handle = memory.ReadU64(*thread + recipe.vthread_offset);
    absl::StatusOr<uint64_t> oop =
        handle.ok() && *handle != 0 ? memory.ReadU64(*handle) : absl::StatusOr<uint64_t>(0);
    if (handle.ok()) out.handle = *handle;
    if (oop.ok()) out.oop = *oop;
    id = oop.ok() && *oop != 0 ? memory.ReadU64(*oop + recipe.tid_offset) : oop;
  }
  if (!id.ok()) {
    out.status = VTCTX_CTX_FAULT;
    out.note = absl::StrCat("the mounted thread's id is unreadable: ", id.status().message());
    return out;
  }
  out.java_thread_id = *id;
  out.hit = protocol::FindInIndex(Reader(memory), recipe.index, *id);
  out.status = out.hit.outcome == protocol::IndexOutcome::kFound      ? VTCTX_CTX_OK
               : out.hit.outcome == protocol::IndexOutcome::kNotFound ? VTCTX_CTX_NULL
                                                                      : VTCTX_CTX_FAULT;
  if (out.status == VTCTX_CTX_OK) out.record = out.hit.record;
  if (out.hit.outcome == protocol::IndexOutcome::kMalformed) out.note = out.hit.problem;
  if (out.hit.outcome == protocol::IndexOutcome::kUnreadable) {
    out.note = "the thread index is unreadable";
  }
  return out;
}

bool ConfirmIdentity(const vtctx_identity_recipe& recipe, const IdentityFollow& follow,
                     MemoryReader& memory) {
  if (follow.status != VTCTX_CTX_OK) return true;
  if (!protocol::ConfirmIndexHit(Reader(memory), recipe.index, follow.java_thread_id, follow.hit)) {
    return false;
  }
  if (recipe.kind != VTCTX_IDENTITY_VTHREAD_OOP) return true;
  absl::StatusOr<uint64_t> oop = memory.ReadU64(follow.handle);
  if (!oop.ok() || *oop == 0) return false;
  if (*oop == follow.oop) return true;
  // As commands/identityRead.bpf.h: a moved handle is confirmed by the id of the object it names.
  absl::StatusOr<uint64_t> id = memory.ReadU64(*oop + recipe.tid_offset);
  return id.ok() && *id == follow.java_thread_id;
}

}  // namespace vtctx::reader
