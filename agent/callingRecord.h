// The record of the Java thread that calls a native, for the natives that hand out or write it
// (currentRecord, currentRecordBuffer, setAttribute), on either channel:
//   carrier   JVMTI thread-local storage (a record bound at a start or mount event, or now for a
//             thread that predates a late attach), entered in the thread index at its first call;
//   identity  the thread index, by the thread's id (identityChannel.h).
// With the record comes its view (a local reference): while the caller holds it, the record
// cannot go back to the pool (recordViews.h).
#ifndef VTCTX_AGENT_CALLING_RECORD_H_
#define VTCTX_AGENT_CALLING_RECORD_H_

#include <jni.h>

#include "threadContextRecord.h"

namespace vtctx {

struct CallingRecord {
  ThreadContextRecord* record = nullptr;  // null: no record can be had (agent inactive, no memory)
  jobject view = nullptr;                 // local reference to the record's direct ByteBuffer
};

CallingRecord CallingThreadRecord(JNIEnv* jni);

}  // namespace vtctx

#endif  // VTCTX_AGENT_CALLING_RECORD_H_
