// The agent's options: ONE table that drives parsing (options.cpp), the list of valid keys in
// error messages, and the options table of docs/agent.md (checked row by row by unit
// OptionsDoc.EveryOptionIsDocumented). Add an option here, its field in Options (options.h) and
// its parser in options.cpp, and nowhere else.
//
// X(key, parser, values, default, meaning): `key` as typed after -agentpath:libvtctx.so=;
// `parser` the function in options.cpp that stores a value into Options or says what is wrong;
// `values`, `default` and `meaning` the docs row's cells (Markdown).
#ifndef VTCTX_AGENT_OPTION_TABLE_H_
#define VTCTX_AGENT_OPTION_TABLE_H_

#define VTCTX_AGENT_OPTIONS(X)                                                                     \
  X(log, ParseLog, "`off`, `error`, `info`, `debug`", "`info`",                                    \
    "stderr logging, one line per message, prefix `vtctx:` (info: one line at load)")              \
  X(stats, ParseStats, "file path", "none",                                                        \
    "write the agent's counters as JSON at VM exit, into a regular file of the JVM's user, "       \
    "created if missing (no symbolic link on the way)")                                            \
  X(onerror, ParseOnError, "`continue`, `abort`", "`continue`",                                    \
    "on a bad option, a JVM without virtual-thread support (JDK < 21) or a JVMTI failure: stay "   \
    "inactive, or fail the load (the JVM exits at startup; an attach reports failure)")            \
  X(channel, ParseChannel, "`carrier`, `identity`", "`carrier`",                                   \
    "how readers find a virtual thread's context: the carrier's `otel_thread_ctx_v1` points at "   \
    "it (JVMTI mount events; what the OpenTelemetry eBPF profiler reads), or no JVMTI at all and " \
    "readers follow HotSpot's record of the mounted thread to its record (`vtctx-reader`; no "     \
    "cost per mount: [design.md](design.md#channels))")                                            \
  X(thread_index, ParseThreadIndex, "`on`, `off`", "`off`",                                        \
    "with `channel=carrier`: also enter each publishing thread's record in the identity "          \
    "channel's thread index, for `vtctx-reader verify` (~0.8 us more per publishing thread: "      \
    "[results/agent.md](results/agent.md#the-identity-channel-against-the-carrier-channel)); "     \
    "`channel=identity` always keeps it")                                                          \
  X(bind, ParseBind, "`mount`, `start`, `use`", "`mount`",                                         \
    "when a virtual thread gets its record: at its first mount (VirtualThreadStart is then not "   \
    "enabled at all), at VirtualThreadStart, or when it first publishes through the shim "         \
    "(threads that never publish cost no binding; their carrier publishes NULL for them); with "   \
    "`channel=identity` always when it first publishes")                                           \
  X(record_size, ParseRecordSize, "64..640, multiple of 64", "64",                                 \
    "bytes per record (larger leaves room for attributes)")                                        \
  X(service_name, ParseServiceName, "name", "none",                                                \
    "`service.name` in the OTEP 4719 process context; wins over `-Dotel.service.name` and "        \
    "`OTEL_SERVICE_NAME` (see below)")                                                             \
  X(attribute_keys, ParseAttributeKeys, "`k1\\|k2\\|...`", "none",                                 \
    "record attribute keys registered at load, in order (index 0, 1, ...); more can be "           \
    "registered from Java (see below)")                                                            \
  X(shim_loaders, ParseShimLoaders, "`operator`, `system`, `any`", "`operator`",                   \
    "which copies of the shim get the agent's natives: `operator` the ones whoever started the "   \
    "JVM installed (the class path or module path, and the OpenTelemetry Java agent's "            \
    "extensions), `system` the class path's or module path's only, `any` also those of every "     \
    "other class loader (a web application's; [shim.md](shim.md#the-agents-natives))")             \
  X(reader_resync, ParseReaderResync, "`on`, `off`", "`off`",                                      \
    "late attach only: a native thread at nice 19 runs short bursts of CPU in the agent's code "   \
    "(at most 0.8 s of CPU over 28 s) so that eBPF profilers started before the attach that "      \
    "resynchronise only on unknown code re-read the process's mappings "                           \
    "([interop.md](interop.md#a-late-attached-writer)); costs a service under a CPU quota "        \
    "([results/agent.md](results/agent.md#reader-resync-under-a-cpu-quota))")                      \
  X(report, ParseReport, "file path", "none",                                                      \
    "write the load's outcome into this existing file as one line (`active vtctx=... load=... "    \
    "java=... record_size=... records=... bind=... options=...` or `inactive vtctx=... "           \
    "reason=...`), for attachers that cannot see the JVM's stderr; `vtctx-reader attach` "         \
    "creates the file and sets it")                                                                \
  X(fault, ParseFault, "`none`, `stale-carrier`, `identity-index`", "`none`",                      \
    "TEST ONLY: deliberately wrong publication to prove the correctness checks can fail: never "   \
    "repoint a carrier at unmount, or map each thread id to the record entered before its own")

#endif  // VTCTX_AGENT_OPTION_TABLE_H_
