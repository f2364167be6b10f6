/*
 * BPF side of the identity recipe (target/identitySlot.h): the record of the Java thread the
 * CURRENT task runs, found through HotSpot's record of the mounted thread and the writer's thread
 * index (vtctx/threadIndex.h), with no event at mount or unmount. Every read is a probe-read (the
 * target may change or unmap anything meanwhile); the confirmation after the record's reads makes
 * a record that changed hands read as no context (VTCTX_CTX_CHANGED), never as another thread's.
 *
 * Defines the two recipes as read-only data user space sets before load (bpfRun.h:
 * SetCommonRodata); vtctx_read_current_context() follows whichever channel it chose.
 */
#ifndef VTCTX_READER_IDENTITY_READ_BPF_H_
#define VTCTX_READER_IDENTITY_READ_BPF_H_

#include "commands/tlsSlot.bpf.h"
#include "target/identitySlot.h"
#include "vtctx/threadIndex.h"

const volatile struct vtctx_slot_recipe vtctx_recipe = {};
const volatile struct vtctx_identity_recipe vtctx_identity = {};

/* The id of the Java thread HotSpot says this OS thread runs now. */
static __always_inline int vtctx_mounted_thread_id(const volatile struct vtctx_identity_recipe* r,
                                                   struct vtctx_identity_hit* hit) {
  __u64 slot = 0, thread = 0, word = 0;
  int status = vtctx_slot_address(&r->thread_slot, vtctx_thread_pointer(), &slot);

  if (status != VTCTX_CTX_OK) return status;
  if (vtctx_read_u64(&thread, slot)) return VTCTX_CTX_FAULT;
  if (thread == 0) return VTCTX_CTX_NO_JAVA_THREAD;
  /* Only a JavaThread holds this word there (identitySlot.h). */
  if (vtctx_read_u64(&word, thread + r->java_thread_word_offset) || word != r->java_thread_word)
    return VTCTX_CTX_NO_JAVA_THREAD;
  if (r->kind == VTCTX_IDENTITY_OWNER_ID) {
    if (vtctx_read_u64(&hit->thread_id, thread + r->owner_id_offset)) return VTCTX_CTX_FAULT;
    return VTCTX_CTX_OK;
  }
  if (vtctx_read_u64(&hit->handle, thread + r->vthread_offset)) return VTCTX_CTX_FAULT;
  if (hit->handle == 0) return VTCTX_CTX_NO_JAVA_THREAD;
  if (vtctx_read_u64(&hit->oop, hit->handle)) return VTCTX_CTX_FAULT;
  if (hit->oop == 0) return VTCTX_CTX_NO_JAVA_THREAD;
  if (vtctx_read_u64(&hit->thread_id, hit->oop + r->tid_offset)) return VTCTX_CTX_FAULT;
  return VTCTX_CTX_OK;
}

/* The thread index's record for hit->thread_id (0 if none); sets hit->table and hit->entry. */
static __always_inline int vtctx_index_find(const volatile struct vtctx_identity_recipe* r,
                                            struct vtctx_identity_hit* hit, __u64* record) {
  struct vtctx_index_table_header table = {};
  struct vtctx_index_entry entry = {};
  __u64 home, mask;
  __u32 i;

  *record = 0;
  if (!vtctx_index_is_thread_id(hit->thread_id)) return VTCTX_CTX_NULL;
  if (vtctx_read_u64(&hit->table, r->index + VTCTX_INDEX_OFFSET_TABLE)) return VTCTX_CTX_FAULT;
  if (bpf_probe_read_user(&table, sizeof(table), (const void*)hit->table)) return VTCTX_CTX_FAULT;
  /* A table that is not one reads as none (vtctx/threadIndexLookup.h: IndexTableProblem). */
  if (table.capacity == 0 || (table.capacity & (table.capacity - 1)) != 0 || table.shift == 0 ||
      table.shift > 63 || (1ull << (64 - table.shift)) != table.capacity)
    return VTCTX_CTX_FAULT;
  mask = table.capacity - 1;
  home = vtctx_index_home(hit->thread_id, table.shift);
  for (i = 0; i < VTCTX_INDEX_MAX_PROBE; i++) {
    if (i >= table.max_probe) break;
    hit->entry =
        hit->table + VTCTX_INDEX_TABLE_HEADER_SIZE + ((home + i) & mask) * VTCTX_INDEX_ENTRY_SIZE;
    if (bpf_probe_read_user(&entry, sizeof(entry), (const void*)hit->entry)) return VTCTX_CTX_FAULT;
    if (entry.thread_id == hit->thread_id) {
      *record = entry.record;
      return entry.record != 0 ? VTCTX_CTX_OK : VTCTX_CTX_NULL;
    }
    if (entry.thread_id == VTCTX_INDEX_EMPTY) break;
  }
  return VTCTX_CTX_NULL; /* the thread never published: no record */
}

/* Fills ctx like vtctx_read_context (record, status, header) from the identity channel. */
static __always_inline void vtctx_read_identity_context(
    const volatile struct vtctx_identity_recipe* r, struct vtctx_context* ctx,
    struct vtctx_identity_hit* hit) {
  __u64 record = 0;
  int status;

  ctx->record = 0;
  ctx->attrs_len = 0;
  status = vtctx_mounted_thread_id(r, hit);
  if (status == VTCTX_CTX_OK) status = vtctx_index_find(r, hit, &record);
  if (status == VTCTX_CTX_OK) {
    ctx->record = record;
    if (bpf_probe_read_user(&ctx->header, sizeof(ctx->header), (const void*)record))
      status = VTCTX_CTX_FAULT;
  }
  ctx->status = status;
}

/* After every read of the record: true if it is still the mounted thread's. */
static __always_inline bool vtctx_identity_confirmed(const volatile struct vtctx_identity_recipe* r,
                                                     const struct vtctx_context* ctx,
                                                     const struct vtctx_identity_hit* hit) {
  struct vtctx_index_entry entry = {};
  __u64 table = 0, oop = 0, id = 0;

  if (ctx->status != VTCTX_CTX_OK) return true; /* nothing read to confirm */
  if (vtctx_read_u64(&table, r->index + VTCTX_INDEX_OFFSET_TABLE)) return false;
  if (table == hit->table) {
    if (bpf_probe_read_user(&entry, sizeof(entry), (const void*)hit->entry)) return false;
    if (entry.thread_id != hit->thread_id || entry.record != ctx->record) return false;
  } else {
    /* A rebuild published a new table (threads came or went): the thread is looked up again.
     * Its entry is removed only when it ends and its id never comes back, so the same record
     * under its id is still its own (vtctx/threadIndexLookup.h: ConfirmIndexHit). */
    struct vtctx_identity_hit again = *hit;
    __u64 record = 0;
    if (vtctx_index_find(r, &again, &record) != VTCTX_CTX_OK || record != ctx->record) return false;
  }
  if (r->kind != VTCTX_IDENTITY_VTHREAD_OOP) return true;
  if (vtctx_read_u64(&oop, hit->handle) || oop == 0) return false;
  if (oop == hit->oop) return true;
  /* The handle moved: another thread mounted, or a GC moved the Thread object (its id read at the
   * old address may be another object's after a sliding compaction). The record is the mounted
   * thread's only if the object the handle names now has the id used: ids are never reused. */
  if (vtctx_read_u64(&id, oop + r->tid_offset)) return false;
  return id == hit->thread_id;
}

/* The context of the code the current task runs, on the channel user space chose. */
static __always_inline void vtctx_read_current_context(struct vtctx_context* ctx,
                                                       struct vtctx_identity_hit* hit) {
  if (vtctx_identity.kind != VTCTX_IDENTITY_NONE)
    vtctx_read_identity_context(&vtctx_identity, ctx, hit);
  else
    vtctx_read_context(&vtctx_recipe, ctx);
}

/* Call once everything of the record is read (header, attrs): a record that changed hands meanwhile
 * becomes no context. */
static __always_inline void vtctx_confirm_current_context(struct vtctx_context* ctx,
                                                          const struct vtctx_identity_hit* hit) {
  if (vtctx_identity.kind == VTCTX_IDENTITY_NONE) return;
  if (vtctx_identity_confirmed(&vtctx_identity, ctx, hit)) return;
  ctx->record = 0;
  ctx->attrs_len = 0;
  ctx->status = VTCTX_CTX_CHANGED;
}

#endif /* VTCTX_READER_IDENTITY_READ_BPF_H_ */
