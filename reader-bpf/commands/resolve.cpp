// `vtctx-reader resolve`: how `otel_thread_ctx_v1` resolves in a process, then each thread's
// current record, read with the thread stopped (threadSnapshot.h).
#include <cstdio>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "commands/commandDeadline.h"
#include "commands/commands.h"
#include "hotspot/agentLoad.h"
#include "hotspot/javaThreadLayout.h"
#include "target/agentWait.h"
#include "target/processContextReader.h"
#include "target/processMemory.h"
#include "target/recordFormat.h"
#include "target/targetProcess.h"
#include "target/threadSnapshot.h"
#include "target/tlsResolver.h"
#include "target/untrustedText.h"

namespace vtctx::reader {

const CommandHelp kResolveHelp = {
    "usage: vtctx-reader resolve --pid P [flags]\n"
    "\n"
    "Finds every mapped ELF of process P that exports " VTCTX_TLS_SYMBOL
    " in .dynsym, classifies its\n"
    "TLS access model from the relocations naming it, decodes the OTEP 4719 process context\n"
    "(resource attributes, threadlocal.schema_version, threadlocal.attribute_key_map) and prints\n"
    "each thread's current record with its attributes named through the key map. Each thread is\n"
    "stopped (ptrace) while its slot and record are read, then resumed; a thread already traced\n"
    "(debugger, strace, another reader) is listed unread, with a note.\n"
    "\n",
    ""};

namespace {

// At most this long for stopping the threads (each at most kThreadStopWaitS): a target whose
// threads will not stop cannot keep resolve waiting.
constexpr double kThreadsBudgetS = 10;

std::string ModuleJson(const ModuleResolution& m) {
  std::string out = "{\"library\":";
  AppendJsonString(out, m.path);
  absl::StrAppendFormat(&out, ",\"load_bias\":\"0x%x\",\"main_executable\":%s", m.load_bias,
                        m.main_executable ? "true" : "false");
  absl::StrAppend(&out, ",\"access_model\":\"", AccessModelName(m.model), "\"");
  if (m.recipe.kind == VTCTX_SLOT_STATIC) {
    absl::StrAppend(&out, ",\"tls\":\"static\",\"tls_offset\":", m.recipe.tp_offset);
  } else {
    absl::StrAppend(&out, ",\"tls\":\"dynamic\",\"module_id\":", m.recipe.module_id,
                    ",\"offset\":", m.recipe.module_offset,
                    ",\"generation\":", m.recipe.min_generation);
  }
  out += '}';
  return out;
}

std::string ThreadJson(const ThreadSnapshot& t, const AttributeNames& names) {
  std::string out = absl::StrCat("{\"tid\":", t.tid, ",\"name\":");
  AppendJsonString(out, t.name);
  out += ",\"thread_pointer\":\"";
  if (t.thread_pointer != 0) absl::StrAppendFormat(&out, "0x%x", t.thread_pointer);
  out += "\",\"slot\":\"";
  if (t.slot != 0) absl::StrAppendFormat(&out, "0x%x", t.slot);
  out += "\",";
  AppendContextJson(out, t.View(), &names);
  if (t.java_thread_id != 0) absl::StrAppend(&out, ",\"java_thread_id\":", t.java_thread_id);
  if (!t.note.empty()) {
    out += ",\"note\":";
    AppendJsonString(out, t.note);
  }
  out += '}';
  return out;
}

std::string ThreadText(const ThreadSnapshot& t, const AttributeNames& names) {
  // A thread's name is the target's to choose (prctl, pthread_setname_np): escaped.
  std::string out = absl::StrFormat("  %-8d %-16s ", t.tid, Printable(t.name, 64));
  out += t.slot != 0 ? absl::StrFormat("0x%-14x ", t.slot) : absl::StrFormat("%-16s ", "-");
  out += t.record != 0 ? absl::StrFormat("0x%-14x ", t.record) : absl::StrFormat("%-16s ", "-");
  AppendContextText(out, t.View(), &names);
  if (t.java_thread_id != 0) absl::StrAppend(&out, " [runs Java thread ", t.java_thread_id, "]");
  if (!t.note.empty()) absl::StrAppend(&out, " [", Printable(t.note), "]");
  return out;
}

// What resolve prints: the exporting modules, the process context, then the threads.
std::string Output(pid_t pid, bool json, const Resolution& resolution,
                   const ProcessContext& context, const AttributeNames& names,
                   const std::string& channel, const std::vector<ThreadSnapshot>& threads) {
  std::string out;
  if (json) {
    for (const ModuleResolution& m : resolution.modules) absl::StrAppend(&out, ModuleJson(m), "\n");
    absl::StrAppend(&out, "{\"process_context\":", ProcessContextJson(context), "}\n");
    out += "{\"channel\":";
    AppendJsonString(out, channel);
    out += "}\n";
    for (const ThreadSnapshot& t : threads) absl::StrAppend(&out, ThreadJson(t, names), "\n");
  } else {
    absl::StrAppend(&out, "pid ", pid, ": " VTCTX_TLS_SYMBOL " resolved\n");
    for (const ModuleResolution& m : resolution.modules) {
      absl::StrAppendFormat(&out, "  %s (load bias 0x%x%s)\n", DescribeModule(m), m.load_bias,
                            m.main_executable ? ", main executable" : "");
    }
    out += ProcessContextText(context);
    absl::StrAppend(&out, "threads (each stopped while read; ", channel, "):\n");
    absl::StrAppendFormat(&out, "  %-8s %-16s %-16s %-16s %s\n", "TID", "NAME", "SLOT", "RECORD",
                          "CONTEXT");
    for (const ThreadSnapshot& t : threads) absl::StrAppend(&out, ThreadText(t, names), "\n");
  }
  return out;
}

}  // namespace

absl::Status RunResolve(const ResolveOptions& options) {
  const pid_t pid = options.pid;
  const std::string stage = absl::StrCat("resolving pid ", pid);
  const std::optional<double> deadline = SetupDeadline(options.attach, options.wait_s);
  if (deadline) ArmCommandDeadline(*deadline, stage);
  absl::StatusOr<TargetProcess> target = TargetProcess::Hold(pid);
  if (!target.ok()) return target.status();
  if (absl::Status s = AttachBeforeRun(*target, options.attach); !s.ok()) return s;
  absl::StatusOr<std::unique_ptr<ProcessMemory>> memory = target->Memory();
  if (!memory.ok()) return ProcessAccessError(pid, memory.status());
  absl::StatusOr<Resolution> resolution =
      ResolveWithWait(*target, **memory, options.wait_s, [] { return false; });
  if (!resolution.ok()) return resolution.status();
  if (!deadline) ArmCommandDeadline(kSetupDeadlineS, stage);  // the wait is over
  for (const std::string& w : resolution->warnings) {
    fprintf(stderr, "vtctx-reader: warning: %s\n", w.c_str());
  }
  // Threads are read through the first module's slot; others are listed (stderr warns if they
  // locate a different slot, which only happens with isolated namespaces such as RTLD_LOCAL
  // copies or dlmopen).
  const ModuleResolution& chosen = resolution->modules.front();
  std::string note;
  absl::StatusOr<IdentityRecipe> channel =
      ChooseChannel(*target, **memory,
                    options.channel == ChannelChoice::kAuto
                        ? std::nullopt
                        : std::optional(options.channel == ChannelChoice::kIdentity),
                    &note);
  if (!channel.ok()) return channel.status();
  if (!note.empty()) fprintf(stderr, "vtctx-reader: %s\n", note.c_str());
  ProcessContext context = ReadProcessContext(pid, **memory);
  AttributeNames names = NamesOf(context);
  absl::StatusOr<std::vector<ThreadSnapshot>> threads =
      SnapshotThreads(*target, chosen.recipe, channel->recipe, **memory, kThreadsBudgetS);
  if (!threads.ok()) return threads.status();
  // A key registered while the threads were read is only in a newer context: read it again if a
  // record carries an index the first read does not name (key maps only grow, so the newer one
  // names everything the older one did).
  for (const ThreadSnapshot& t : *threads) {
    if (!IsValidContext(t.View()) || !HasUnnamedIndex(t.attrs, names)) continue;
    if (ProcessContext again = ReadProcessContext(pid, **memory); again.ok()) {
      context = std::move(again);
      names = NamesOf(context);
    }
    break;
  }
  // Read by pid: the held process's only if it is still alive now.
  if (target->Exited()) {
    return absl::NotFoundError(absl::StrCat("pid ", pid, " exited while it was read"));
  }
  // Its memory was read as it was when held; its maps, files and threads may be another
  // program's now (a setuid one's): nothing of it is printed.
  if (target->Execed()) {
    return absl::NotFoundError(absl::StrCat(
        "pid ", pid, " ran another program (exec) while it was read: nothing printed"));
  }
  if (std::string note = DescribeLimitation(context, pid); !note.empty()) {
    fprintf(stderr, "vtctx-reader: %s\n", note.c_str());
  }

  const std::string out =
      Output(pid, options.json, *resolution, context, names, channel->description, *threads);
  fwrite(out.data(), 1, out.size(), stdout);
  return absl::OkStatus();
}

}  // namespace vtctx::reader
