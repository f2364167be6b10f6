// The Java views of records (the direct ByteBuffers the shim writes through), and the rule that a
// record goes back to the pool only when no view of it can still be used: its thread has ended
// AND the garbage collector has found its views unreachable. A view can therefore never write
// into, or read, a record that another thread owns now, whoever kept it (a caller that kept the
// buffer past its thread's end, through reflection on the class path, keeps a dead record alive,
// nothing more).
//
// Bookkeeping: the record's holder word (RecordPool::Holder) holds a JNI weak global reference to
// the record's view while the record is taken, plus kHolderThreadEnded once its thread ended. The
// end events (handlerBodies.h: ReleaseEndedRecord) return a record without a view at once, as
// before, and only mark one with a view; the maintenance thread (maintenance.h) returns marked
// records whose view was collected (SweepRecordViews). JNI weak references are cleared only when
// the object is unreachable and not reachable through a finalizer either.
#ifndef VTCTX_AGENT_RECORD_VIEWS_H_
#define VTCTX_AGENT_RECORD_VIEWS_H_

#include <jni.h>

#include <atomic>
#include <cstdint>

#include "recordPool.h"
#include "threadContextRecord.h"

namespace vtctx {

// The holder word's flag set by the end events (user-space handles never have bit 63 set).
inline constexpr uint64_t kHolderThreadEnded = uint64_t{1} << 63;

// A direct ByteBuffer over exactly `record` (record_size bytes) for the thread that owns it, as a
// local reference, or null (no memory, or an exception, cleared). The first view of a record is
// remembered (its holder word); a later call returns that same buffer while it is reachable.
jobject RecordView(JNIEnv* jni, RecordPool& pool, ThreadContextRecord* record);

// Records whose thread ended with a view outstanding (not yet swept): the maintenance thread's
// reason to sweep.
uint64_t RecordsAwaitingViews();
void NoteRecordAwaitingView();

// Returns to the pool, through `cache`, every record whose thread ended and whose view was
// collected; deletes those weak references. Returns how many. `cache` belongs to the caller's
// thread (flushed here).
uint64_t SweepRecordViews(JNIEnv* jni, RecordPool& pool, RecordCache& cache);

}  // namespace vtctx

#endif  // VTCTX_AGENT_RECORD_VIEWS_H_
