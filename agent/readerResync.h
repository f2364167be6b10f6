// Late attach: makes sampling profilers that learn a process's mappings lazily (the OpenTelemetry
// eBPF profiler) notice that libvtctx.so, and with it our TLS variable, appeared after they last
// read /proc/<pid>/maps. See docs/interop.md ("A late-attached writer").
//
// Such a profiler re-reads a known process's mappings when a CPU sample of it unwinds through a
// code address outside every mapping it knows: a thread running our own code when it is sampled.
// It rate-limits these events per process (up to 25.6 s after the last one it acted on; samples
// inside that window are dropped, not queued), so the thread repeats short bursts until the
// longest window has certainly passed. Newer profilers also resynchronise on
// prctl(PR_SET_VMA_ANON_NAME, "OTEL_CTX"), which the process-context publisher already calls.
#ifndef VTCTX_AGENT_READER_RESYNC_H_
#define VTCTX_AGENT_READER_RESYNC_H_

#include <cstdint>
#include <string>

namespace vtctx {

struct ResyncSchedule {
  uint32_t bursts = 8;          // at 0, 4, ..., 28 s: one starts after any 25.6 s window
  uint32_t interval_ms = 4000;  // between burst starts
  uint32_t burst_cpu_ms = 100;  // CPU time per burst: 2 sampling periods at the default 20 Hz
};

// Starts a detached native thread "vtctx-resync" (not a Java thread, all signals blocked, nice 19)
// that runs `schedule`'s bursts in this library's code and exits. At nice 19 a burst takes only
// CPU the application leaves; one that cannot get its CPU time stops when the next is due, so the
// whole costs at most bursts * burst_cpu_ms of CPU. Call it after the process context is published
// so the resynchronisation reads it too. Returns "" or why no thread was started.
std::string StartReaderResync(const ResyncSchedule& schedule = {});

}  // namespace vtctx

#endif  // VTCTX_AGENT_READER_RESYNC_H_
