// Agent options: "key=value,key=value" as given after -agentpath:libvtctx.so= or to the attach API.
// The keys, their values, defaults and meanings are one table (optionTable.h). Parsing is pure
// (no JVM) and unit-tested; an unknown key or a malformed value is an error that names the culprit
// and lists the valid keys.
#ifndef VTCTX_AGENT_OPTIONS_H_
#define VTCTX_AGENT_OPTIONS_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "log.h"

namespace vtctx {

enum class OnError { kContinue, kAbort };

// When a virtual thread's record is created:
//  kFirstMount: at its first Mount (VirtualThreadStart is then not enabled: no delivery cost);
//  kStart:      at VirtualThreadStart;
//  kFirstUse:   when the thread first publishes through the shim (JNI). Threads that never publish
//               never get a record or JVMTI thread state; their carrier publishes NULL for them.
enum class BindAt { kFirstMount, kStart, kFirstUse };

// Which copies of the shim's AgentNatives class get the agent's natives (shimNatives.h).
enum class ShimLoaders {
  kSystem,    // the one the system class loader defines (class path, or module path)
  kOperator,  // also the one the OpenTelemetry Java agent loads as its extension (shimOrigin.h)
  kAny,       // also those of any other class loader
};

// Test-only faults that make the agent deliberately wrong, to prove the harness can fail.
// How readers find the context of the code a carrier runs (docs/design.md, "Channels").
enum class Channel {
  kCarrier,   // JVMTI mount events point the carrier's otel_thread_ctx_v1 at the mounted thread
  kIdentity,  // no JVMTI: readers follow HotSpot's record of the mounted thread to its record
};

// TEST ONLY faults (fault=), each making a correctness check fail on purpose.
enum class Fault {
  kNone,
  kStaleCarrier,   // publish only at a thread's first mount, never repoint at unmount
  kIdentityIndex,  // the thread index maps each thread to the record entered before its own
};

struct Options {
  LogLevel log = LogLevel::kInfo;
  std::string stats_path;  // empty: no stats file
  OnError on_error = OnError::kContinue;
  BindAt bind = BindAt::kFirstMount;
  size_t record_size = 64;  // bytes
  Fault fault = Fault::kNone;
  Channel channel = Channel::kCarrier;
  // thread_index=on|off: the carrier channel also fills the thread index (identityIndex.h), for
  // `vtctx-reader verify`; channel=identity always does (vmEntry.cpp forces it on).
  bool thread_index = false;
  // OTEP 4719 process context (docs/process-context.md).
  // service_name=<name>: wins over -Dotel.service.name and OTEL_SERVICE_NAME; empty = unset.
  std::string service_name;
  // attribute_keys=<k1>|<k2>|...: keys registered at load, in this order (indexes 0, 1, ...).
  std::vector<std::string> attribute_keys;
  ShimLoaders shim_loaders = ShimLoaders::kOperator;
  // reader_resync=on|off: at late attach, make lazily synchronising profilers notice libvtctx.so
  // (readerResync.h). Ignored at startup. Off by default: it costs CPU a service under a quota
  // pays for.
  bool reader_resync = false;
  // report=<path>: write the load's outcome there as one line (loadReport.h); empty: none.
  std::string report_path;
};

struct OptionsParseResult {
  Options options;
  std::string error;  // empty on success; otherwise one line naming the bad key or value
  bool ok() const { return error.empty(); }
};

// Parses `text` (may be null or empty: all defaults). On error, `options` still holds every
// setting that parsed, so an explicit onerror=abort is honoured even next to a bad key.
OptionsParseResult ParseOptions(const char* text);

// "mount", "start" or "use", as spelled in the option.
const char* BindName(BindAt bind);
const char* ChannelName(Channel channel);
const char* FaultName(Fault fault);

// The keys of optionTable.h, comma-separated in its order ("log, stats, onerror, ...").
const char* ValidOptionKeys();

}  // namespace vtctx

#endif  // VTCTX_AGENT_OPTIONS_H_
