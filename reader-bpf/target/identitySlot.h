/*
 * How to find, at an event, the record of the Java thread an OS thread runs through HotSpot's own
 * record of it (the identity channel: docs/protocol.md, "Identity channel"; docs/design.md,
 * "Channels"). Plain C shared by the BPF programs (commands/identityRead.bpf.h) and user space
 * (hotspot/javaThreadLayout.cpp fills it; target/identityLookup.cpp follows it for `resolve`).
 *
 *   thread = *(u64 *)slot(thread_slot)       libjvm's Thread::_thr_current: this OS thread's
 *                                           HotSpot Thread (a vtctx_slot_recipe; 0: none)
 *   a JavaThread only if *(u64 *)(thread + java_thread_word_offset) == java_thread_word: a word
 *                                           every JavaThread holds and no other HotSpot thread
 *                                           does (its JNIEnv's function table, or its vtable:
 *                                           javaThreadLayout.cpp); a GC or VM thread read at the
 *                                           JavaThread offsets below would read anything
 *   OWNER_ID (JDK 24+):  id = *(s64 *)(thread + owner_id_offset)     JavaThread::_monitor_owner_id
 *   VTHREAD_OOP (JDK 21-23, collectors that move objects only at safepoints):
 *                        handle = *(u64 *)(thread + vthread_offset)  JavaThread::_vthread
 * (OopHandle) oop = *(u64 *)handle; id = *(s64 *)(oop + tid_offset) record = the thread index's
 * entry for id (vtctx/threadIndex.h, header at `index`) and, after every read of the record, the
 * confirmation: the index still maps id to the record (and, for VTHREAD_OOP, *handle is still oop,
 * or names an object with the same id: a GC that moved the Thread object under the read is not a
 * change of thread; an id read at an address another object has slid into is refused).
 */
#ifndef VTCTX_READER_IDENTITY_SLOT_H_
#define VTCTX_READER_IDENTITY_SLOT_H_

#include "target/tlsSlot.h"

enum vtctx_identity_kind {
  VTCTX_IDENTITY_NONE = 0, /* the carrier channel: follow otel_thread_ctx_v1 */
  VTCTX_IDENTITY_OWNER_ID = 1,
  VTCTX_IDENTITY_VTHREAD_OOP = 2,
};

struct vtctx_identity_recipe {
  __u32 kind; /* enum vtctx_identity_kind */
  __u32 reserved;
  struct vtctx_slot_recipe thread_slot;
  __u64 java_thread_word_offset;
  __u64 java_thread_word;
  __u64 owner_id_offset;
  __u64 vthread_offset;
  __u64 tid_offset;
  __u64 index; /* the thread index header's address */
};

/* What a read found, for its confirmation. */
struct vtctx_identity_hit {
  __u64 thread_id;
  __u64 table;
  __u64 entry;
  __u64 handle; /* VTHREAD_OOP only */
  __u64 oop;
};

#endif /* VTCTX_READER_IDENTITY_SLOT_H_ */
