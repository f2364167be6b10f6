// vtctx-reader's flags: ONE table that drives what each command accepts (cliArgs.h specs and the
// short spellings), the flags part of each command's --help, the defaults the parsers use, and the
// flags table of docs/reader.md (checked row by row by unit ReaderFlagsDoc.EveryFlagIsDocumented).
// Add a flag here, read it in commandOptions.cpp, and nowhere else.
//
// X(name, short, commands, value, default, meaning):
//   name     without "--"; a flag may have one row per set of commands when its meaning differs
//   short    a one-letter spelling ("d": -d S), or ""
//   commands the commands that take it: kResolve, kSyscalls, kProfile, kVerify, kAttach (or-ed)
//   value    "" for a boolean flag, the value's name ("S", "FILE"), or "[=S]" for an optional value
//   default  the default as the parser takes it ("" none)
//   meaning  one sentence or a few; the help text wraps it
#ifndef VTCTX_READER_READER_FLAGS_H_
#define VTCTX_READER_READER_FLAGS_H_

#include <span>
#include <string>

#include "absl/strings/string_view.h"
#include "commands/cliArgs.h"
#include "vtctx/record.h"

namespace vtctx::reader {

enum ReaderCommand : unsigned {
  kResolve = 1u << 0,
  kSyscalls = 1u << 1,
  kProfile = 1u << 2,
  kAttach = 1u << 3,
  kVerify = 1u << 4,
  kBpfCommands = kSyscalls | kProfile | kVerify,
  kTargetCommands = kResolve | kSyscalls | kProfile | kVerify,
  kContextCommands = kResolve | kSyscalls | kProfile,  // read one channel
};

#define VTCTX_READER_FLAGS(X)                                                                      \
  X("pid", "", kTargetCommands | kAttach, "P", "", "the target process (all its threads)")         \
  X("syscall", "", kSyscalls, "NAMES", "",                                                         \
    "comma-separated syscall names or numbers (e.g. write,pwrite64), or `all`; required")          \
  X("format", "", kResolve, "F", "text",                                                           \
    "`text`, or `json`: one object per module (library, access_model, tls, tls_offset or "         \
    "module_id/offset), then {\"process_context\":{...}}, then one per thread (tid, record, "      \
    "valid, trace_id, span_id, trace_flags, attrs, attributes, ...)")                              \
  X("format", "", kSyscalls, "F", "text",                                                          \
    "`text`, or `json`: one object per event with tid, syscall, nr, fd (arg 0), count (arg 2), "   \
    "args, record, valid, trace_id, span_id, trace_flags, context, ts_ns, and with attributes: "   \
    "attrs (by key index) and attributes ({name: value})")                                         \
  X("format", "", kProfile, "F", "table",                                                          \
    "`table`: traces ranked by CPU time; `json`: one object per sample (tid, cpu, ts_ns, record, " \
    "valid, trace_id, span_id, trace_flags, context, attrs, attributes); `folded`: "               \
    "'trace_<id>;span_<id>;frames... count' lines for flame graphs; `pprof`: profile.proto, "      \
    "gzip (go tool pprof, Pyroscope), labels trace_id, span_id, thread.id and the named "          \
    "attributes, needs --output; `svg`: a self-contained flame graph. Stacks: on a HotSpot JVM a " \
    "copy of the user stack unwound by HotSpot's frame layout, with or without "                   \
    "-XX:+PreserveFramePointer (\"Java frames\"), elsewhere frame pointers; inlined and "          \
    "interpreted Java frames named from the JVM's own metadata; JIT frames named by the JVM "      \
    "itself, its perf map asked for through its attach socket when sampling starts and ends")      \
  X("hz", "", kProfile | kVerify, "N", "99",                                                       \
    "samples per second of CPU time, per CPU; one sample stands for 1e9/N ns of CPU")              \
  X("channel", "", kContextCommands, "C", "auto",                                                  \
    "how the context of the code a thread runs is found: `auto` (the writer's channel, from P's "  \
    "process context), `carrier` (the thread's " VTCTX_TLS_SYMBOL                                  \
    ") or `identity` (HotSpot's "                                                                  \
    "record of the Java thread the OS thread runs, and the writer's thread index: no JVMTI, no "   \
    "cost per mount; docs/design.md, \"Channels\"); with --attach, `auto` loads the agent with "   \
    "channel=identity where vtctx-reader can follow it in P (else carrier, and stderr says why), " \
    "`carrier` or `identity` that channel")                                                        \
  X("channel", "", kAttach, "C", "carrier",                                                        \
    "the agent's channel: `carrier`, or `identity` (no JVMTI environment: HotSpot's "              \
    "virtual-thread transitions keep their speed; read with vtctx-reader)")                        \
  X("duration", "d", kBpfCommands, "S", "", "stop after S seconds (default: until stopped)")       \
  X("output", "o", kProfile, "FILE", "",                                                           \
    "pprof and svg: write there (svg: default stdout); never through a symlink, never another "    \
    "user's file")                                                                                 \
  X("trace", "", kProfile, "ID,...", "",                                                           \
    "folded, svg, pprof: only the samples of these trace ids (32 hex digits)")                     \
  X("group-by", "", kProfile, "G", "trace",                                                        \
    "table: rank by trace, or by the values of the named record attributes (names from P's "       \
    "OTEP 4719 attribute key map, or #<index>), e.g. --group-by http.route; sends every sample "   \
    "to user space, like json")                                                                    \
  X("folded-attrs", "", kProfile, "A", "",                                                         \
    "folded, svg: start each stack with '<name>=<value>' frames of these attributes, e.g. "        \
    "--folded-attrs http.route,user.id; sends every sample to user space, like json")              \
  X("keep-agent-threads", "", kProfile, "", "",                                                    \
    "also sample the vtctx agent's own threads (named vtctx-*: maintenance, reader resync), "      \
    "which are left out of profiles by default and only counted (agent_thread_samples=)")          \
  X("wait", "", kTargetCommands, "[=S]", "",                                                       \
    "when P does not export " VTCTX_TLS_SYMBOL                                                     \
    " yet (agent not loaded, or being loaded), wait for it: P's maps are read every 200 ms, for "  \
    "at most S seconds (default: no limit); exit 3 if P exits meanwhile")                          \
  X("attach", "", kTargetCommands, "", "",                                                         \
    "first load the vtctx agent into P if it is a HotSpot JVM without it (as `vtctx-reader "       \
    "attach`, the channel as --channel says); already active: say so and go on; then say how "     \
    "many shims the agent serves")                                                                 \
  X("agent", "", kTargetCommands, "PATH", "",                                                      \
    "with --attach: the agent (default: beside vtctx-reader)")                                     \
  X("agent-options", "", kTargetCommands, "OPTS", "", "with --attach: the agent's options")        \
  X("agent", "", kAttach, "PATH", "",                                                              \
    "libvtctx.so (default: the one installed beside vtctx-reader, ../lib/libvtctx.so, or "         \
    "../agent/libvtctx.so in a build tree); a private copy is placed in P's /tmp when P cannot "   \
    "see it safely")                                                                               \
  X("options", "", kAttach, "OPTS", "",                                                            \
    "the agent's options (docs/agent.md, \"Options\"), e.g. log=info,bind=use")                    \
  X("timeout", "", kAttach, "S", "10",                                                             \
    "seconds to wait for P's attach listener, and for the load (x3); at most 3600")                \
  X("ringbuf-mb", "", kSyscalls, "N", "16", "ring buffer size in MiB, a power of two")             \
  X("ringbuf-mb", "", kProfile, "N", "4",                                                          \
    "ring buffer size in MiB for json, pprof, --group-by and --folded-attrs, a power of two")      \
  X("ringbuf-mb", "", kVerify, "N", "1",                                                           \
    "ring buffer size in MiB for the samples whose channels disagree, a power of two")             \
  X("bpf-floor", "", kBpfCommands, "", "",                                                         \
    "benchmark aid: programs stop right after the pid filter (no output), to measure the fixed "   \
    "cost of a run with --bpf-stats")                                                              \
  X("bpf-stats", "", kBpfCommands, "", "",                                                         \
    "enable kernel BPF run-time statistics and report ns per program run")                         \
  X("raw-tp", "", kSyscalls, "", "",                                                               \
    "attach to the raw tracepoint even when BTF tracepoints work")                                 \
  X("verbose", "", kBpfCommands, "", "", "libbpf diagnostics")

struct ReaderFlag {
  absl::string_view name;
  absl::string_view short_name;
  unsigned commands;
  absl::string_view value;
  absl::string_view default_value;
  absl::string_view meaning;
};

// Every row of the table, in its order.
std::span<const ReaderFlag> ReaderFlags();

// The flags `command` accepts, as ParseArgs takes them.
std::span<const FlagSpec> FlagSpecsOf(ReaderCommand command);

// The default of `name` for `command` ("" none).
absl::string_view FlagDefault(ReaderCommand command, absl::string_view name);

// The long name of a short spelling ("-d" -> "duration") for `command`, or "".
absl::string_view LongFlagName(ReaderCommand command, absl::string_view word);

// The flags part of `command`'s --help: one entry per flag, wrapped at 100 columns.
std::string FlagsHelp(ReaderCommand command);

// The row of docs/reader.md's flags table for `flag`: | `--name VALUE` | commands | default |
// meaning |.
std::string FlagDocRow(const ReaderFlag& flag);

}  // namespace vtctx::reader

#endif  // VTCTX_READER_READER_FLAGS_H_
