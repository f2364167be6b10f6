// Another OTEP 4947 writer, or another OTEP 4719 process context, that appears in the process after
// vtctx started: Datadog's java-profiler defines otel_thread_ctx_v1 and publishes its own OTEL_CTX
// (its key index 0 is datadog.local_root_span_id), and OpenTelemetry's Java SDK can publish a
// process context. Readers then follow one definer, or take one OTEL_CTX, and may name vtctx's
// record attributes by the other writer's key map: wrong data that looks right.
//
// The maintenance thread checks every 10 s (a new module is looked at only when the dynamic
// loader's load count changed; /proc/self/maps is read for OTEL_CTX mappings, bounded). The first
// time it finds either, it says so in one vtctx: line and in the stats (other_writers,
// other_process_contexts) and turns record attributes off for good: the agent refuses every key
// and attribute write, the shims stop writing attributes and empty those they meet at their next
// write (shimLink.h). Trace and span ids need no names and stay published.
#ifndef VTCTX_AGENT_WRITER_WATCH_H_
#define VTCTX_AGENT_WRITER_WATCH_H_

#include <jni.h>
#include <jvmti.h>

#include <cstdint>
#include <string_view>

namespace vtctx {

// One check (maintenance thread). `jni` (this thread attached; null: the shims are told at a later
// check) and `jvmti` (null without JVMTI: shimLink.h) tell the running shims to stop writing
// attributes.
void CheckForOtherWriters(jvmtiEnv* jvmti, JNIEnv* jni);

// True once another writer or process context was found: no attribute may be written.
bool AttributesDisabled();

// For stats: other definers of otel_thread_ctx_v1 and other OTEL_CTX mappings found (0 or 1 each:
// the first one found).
uint64_t OtherWritersFound();
uint64_t OtherProcessContextsFound();

}  // namespace vtctx

#endif  // VTCTX_AGENT_WRITER_WATCH_H_
