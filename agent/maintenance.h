// The agent's maintenance thread (native name "vtctx-maint", Java name "vtctx-maintenance"; not a
// JVM thread until it needs JNI): the slow work no event may do. It ticks 10 times a second and
//   - trims the record pool when a spill asked for it (RecordPool::Trim(): a trim walks every free
//     record and zaps pages, milliseconds for a million records; in an event it would stall a
//     carrier), once a second: a request waits a second (a burst of thread ends finishes first),
//     and there is at most one trim per second;
//   - while there are any, returns records whose thread ended while Java held their view, once the
//     view is collected (recordViews.h), at the first tick after each garbage collection; for that
//     it attaches itself to the JVM as a daemon thread (once the JVM is completely created), the
//     first time there is such a record;
//   - with channel=identity at startup, republishes the process context once the JVM's system
//     properties can be read (processContextInit.h);
//   - every 10 s, looks for another thread-context writer or process context (writerWatch.h).
// A tick with nothing to do costs a few loads.
#ifndef VTCTX_AGENT_MAINTENANCE_H_
#define VTCTX_AGENT_MAINTENANCE_H_

#include <jni.h>

#include "recordPool.h"

namespace vtctx {

// Starts the thread (once per process; later calls return its first result). False if it could not
// be created: the pool then keeps its memory, and records held by views stay out of it.
// `refresh_properties`: republish the process context with the JVM's properties once it can.
bool StartMaintenance(JavaVM* vm, RecordPool& pool, bool refresh_properties);

}  // namespace vtctx

#endif  // VTCTX_AGENT_MAINTENANCE_H_
