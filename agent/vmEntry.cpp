// Entry points: -agentpath at startup (Agent_OnLoad), the attach API / jcmd JVMTI.agent_load
// (Agent_OnAttach), and unload. Both load paths share StartAgent(); a failure is logged once,
// whatever log= says. At startup it leaves the JVM running with the agent inactive (unless
// onerror=abort); an attach that fails returns failure to the attacher.
#include <jni.h>
#include <jvmti.h>
#include <time.h>

#include <cstdint>
#include <new>
#include <string>

#include "agentState.h"
#include "eventHandlers.h"
#include "extensionEvents.h"
#include "identityChannel.h"
#include "identityIndex.h"
#include "loadReport.h"
#include "loadedWriters.h"
#include "log.h"
#include "maintenance.h"
#include "otelThreadContext.h"
#include "processContextInit.h"
#include "readerResync.h"
#include "shimLink.h"
#include "shimNatives.h"
#include "stats.h"
#include "systemProperty.h"
#include "threadState.h"
#include "vtctx/version.h"

namespace vtctx {

AgentState& Agent() {
  alignas(AgentState) static unsigned char storage[sizeof(AgentState)];
  static AgentState* agent = new (storage) AgentState();  // never destructed
  return *agent;
}

namespace {

// The JVM's system properties, as far as the agent can read them now (systemProperty.h).
PropertyReader Properties(JavaVM* vm, jvmtiEnv* jvmti) {
  if (jvmti != nullptr) return JvmtiProperties(jvmti);
  JNIEnv* jni = nullptr;  // an attach runs on a Java thread; Agent_OnLoad before any
  if (vm->GetEnv(reinterpret_cast<void**>(&jni), JNI_VERSION_1_8) == JNI_OK) {
    return JniProperties(jni);
  }
  return NoProperties();
}

// The JVMTI environment with virtual-thread support and the mount events, or the reason there is
// none. No environment is left behind on failure.
std::string OpenJvmti(JavaVM* vm, jvmtiEnv** out, MountEventIndexes* indexes) {
  jvmtiEnv* jvmti = nullptr;
  if (vm->GetEnv(reinterpret_cast<void**>(&jvmti), JVMTI_VERSION_21) != JNI_OK) {
    jvmtiEnv* old = nullptr;
    vm->GetEnv(reinterpret_cast<void**>(&old), JVMTI_VERSION_1_2);
    std::string reason = "this JVM (Java " +
                         (old ? JavaVersion(JvmtiProperties(old)) : std::string("unknown")) +
                         ") has no JVMTI 21: virtual threads need JDK 21 or newer";
    if (old != nullptr) old->DisposeEnvironment();
    return reason;
  }
  std::string error;
  jvmtiCapabilities potential{};
  jvmtiCapabilities wanted{};
  wanted.can_support_virtual_threads = 1;
  if (jvmti->GetPotentialCapabilities(&potential) != JVMTI_ERROR_NONE ||
      !potential.can_support_virtual_threads) {
    error = "this JVM (Java " + JavaVersion(JvmtiProperties(jvmti)) +
            ") cannot deliver virtual-thread events (can_support_virtual_threads unavailable)";
  } else if (jvmtiError err = jvmti->AddCapabilities(&wanted); err != JVMTI_ERROR_NONE) {
    error = "AddCapabilities(can_support_virtual_threads) failed with JVMTI error " +
            std::to_string(err);
  } else {
    error = LookupMountEvents(jvmti, indexes);
  }
  if (!error.empty()) {
    jvmti->DisposeEnvironment();
    return error;
  }
  *out = jvmti;
  return {};
}

// A late attach: binds the natives of the shims the agent serves, then tells those that found no
// agent earlier: they publish from their threads' next publish on. Returns a few words for the
// "active" line. `jvmti` is null with channel=identity (shimLink.h).
std::string BindAndTellShims(JavaVM* vm, jvmtiEnv* jvmti, const Options& options) {
  JNIEnv* jni = nullptr;
  ShimLinkOutcome outcome;
  if (vm->GetEnv(reinterpret_cast<void**>(&jni), JNI_VERSION_1_8) != JNI_OK) {
    outcome.error = "no JNI environment";
  } else {
    BindShimNatives(jvmti, jni, options.shim_loaders);
    outcome = TellShimsAgentActive(jvmti, jni, options.shim_loaders);
  }
  if (!outcome.error.empty()) {
    LogError(
        "cannot tell the running shims (%s): threads that used the shim before the attach "
        "publish nothing until the JVM restarts",
        outcome.error.c_str());
    return ", shims not told";
  }
  return ", " + std::to_string(outcome.shims) + (outcome.shims == 1 ? " shim" : " shims") +
         " running";
}

// A JVM without virtual threads (JDK < 21) cannot have them mounted: the identity channel needs
// JNI 21 (IsVirtualThread) as the carrier channel needs JVMTI 21.
std::string CheckJni21(JavaVM* vm, bool late) {
  if (!late) return {};  // no thread has a JNI environment at Agent_OnLoad; checked at first use
  JNIEnv* jni = nullptr;
  if (vm->GetEnv(reinterpret_cast<void**>(&jni), JNI_VERSION_21) == JNI_OK) return {};
  return "this JVM (Java " + JavaVersion(Properties(vm, nullptr)) +
         ") has no JNI 21: virtual threads need JDK 21 or newer";
}

// Returns "" once the agent is active, else the reason (one line) it cannot run. Every check that
// can fail runs before anything is published, and a failure leaves no JVMTI environment, callback
// or open file behind (HotSpot unloads the library after a failed Agent_OnAttach). With
// channel=identity no JVMTI environment is ever created (identityChannel.h).
std::string Activate(JavaVM* vm, AgentState& agent, bool late, const std::string& options_text) {
  // One writer per process: a second copy would split readers and the shim between two
  // otel_thread_ctx_v1 variables (and two process contexts).
  if (const OtherWriter other = FindOtherThreadContextWriter(); !other.path.empty()) {
    std::string error = "another OTEP 4947 writer is already loaded: " + other.path +
                        " defines otel_thread_ctx_v1 (one copy of vtctx per process)";
    // At startup HotSpot keeps this library: its symbol stays visible to readers, so make it lead
    // to the other writer's slot. (A failed attach unloads the library.)
    if (!late) {
      if (std::string share = ShareThreadContextSlot(other); !share.empty()) {
        error += "; readers that follow this copy's symbol read no context (" + share + ")";
      }
    }
    return error;
  }
  const bool identity = agent.options.channel == Channel::kIdentity;
  jvmtiEnv* jvmti = nullptr;
  MountEventIndexes indexes;
  if (identity) {
    if (std::string error = CheckJni21(vm, late); !error.empty()) return error;
  } else if (std::string error = OpenJvmti(vm, &jvmti, &indexes); !error.empty()) {
    return error;
  }
  auto fail = [&](std::string error) {
    CloseStatsFile();
    if (jvmti != nullptr) jvmti->DisposeEnvironment();
    return error;
  };
  if (!agent.options.stats_path.empty()) {
    if (std::string error = OpenStatsFile(agent.options.stats_path); !error.empty()) {
      return fail(std::move(error));
    }
  }
  if (!InitThreadStates()) return fail("cannot reserve memory for thread states (mmap failed)");
  // The pool and the index are created once and never freed (records must stay mapped while any
  // thread runs, and readers read the index until the process ends).
  static RecordPool* pool = new RecordPool(agent.options.record_size);
  if (!pool->ok()) return fail("cannot reserve address space for records (mmap failed)");
  if (!CreateThreadIndex(agent.options.fault)) {
    return fail("cannot map the thread index (mmap failed)");
  }
  if (identity && !StartIdentityChannel()) {
    return fail("cannot create the thread-exit hook (pthread_key_create failed)");
  }
  g_pool = pool;
  g_bind = agent.options.bind;
  agent.jvmti = jvmti;
  agent.attached_late = late;
  // Resolve our TLS descriptor now so external readers see its final value from the start.
  TouchThreadContextSlot();
  if (!identity) {
    if (std::string error = EnableEvents(jvmti, indexes, agent.options, late); !error.empty()) {
      // At startup no thread has run Java code yet; after an attach the library is unloaded:
      // either way no carrier keeps a pointer that an event of ours would have to repoint.
      DisableEvents(jvmti, indexes);
      agent.jvmti = nullptr;
      return fail(std::move(error));
    }
  }
  // OTEP 4719: tells readers our records' schema and attribute names, the channel and the thread
  // index. Thread context works without it on the carrier channel (trace and span ids are
  // readable), so a failure is reported but does not stop the agent.
  const PropertyReader properties = Properties(vm, jvmti);
  ProcessContextOutcome context = PublishProcessContextOnce(
      properties, agent.options, late ? "attached" : "startup", options_text,
      agent.options.thread_index ? AgentThreadIndex()->header() : nullptr);
  if (!context.error.empty()) LogError("process context not published: %s", context.error.c_str());
  // The natives hand out records from here on, only once every event that repoints a carrier is on.
  agent.status.store(AgentStatus::kActive, std::memory_order_release);
  // Threads of ours only once nothing can fail: a failed attach unloads the library.
  if (!StartMaintenance(vm, *pool, /*refresh_properties=*/identity && !late)) {
    LogError(
        "cannot start the maintenance thread; idle records keep their memory, and records Java "
        "held a view of stay out of the pool");
  }
  std::string shims;
  if (late) shims = BindAndTellShims(vm, jvmti, agent.options);
  // Last: the process context is published and the TLS descriptor bound, so the resynchronisation
  // this provokes reads both. Not needed at startup: libvtctx.so is mapped before libjava and the
  // JVM's later libraries, and the code the JVM then runs in them makes such profilers resync.
  if (late && agent.options.reader_resync) {
    if (std::string error = StartReaderResync(); !error.empty()) {
      LogError(
          "reader resync not started (%s): profilers started before this attach may not see "
          "the thread context until they re-read the process's mappings",
          error.c_str());
    }
  }
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  agent.activated_ns = static_cast<uint64_t>(now.tv_sec) * 1'000'000'000u + now.tv_nsec;
  const std::string java = JavaVersion(properties);
  LogInfo("active (%s, vtctx " VTCTX_VERSION
          ", %s channel, Java %s, %zu-byte records, bind=%s, %s%s%s%s)",
          late ? "attached" : "startup", ChannelName(agent.options.channel),
          java == "unknown" ? "version not readable yet" : java.c_str(), pool->record_size(),
          BindName(agent.options.bind),
          context.error.empty() ? context.summary.c_str() : "no process context", shims.c_str(),
          agent.options.fault != Fault::kNone ? ", TEST FAULT " : "",
          agent.options.fault != Fault::kNone ? FaultName(agent.options.fault) : "");
  return {};
}

// The options of the load that activated the agent, for later reports.
std::string& ActiveOptions() {
  static std::string* text = new std::string();  // never destructed: read by late loads
  return *text;
}

// report=PATH (loadReport.h). Not being able to write it is logged; the load goes on regardless.
void ReportLoad(const std::string& path, const std::string& line) {
  if (path.empty()) return;
  if (std::string error = WriteLoadReport(path, line); !error.empty()) {
    LogError("%s", error.c_str());
  }
}

std::string ActiveLine(JavaVM* vm, const AgentState& agent, const char* load) {
  return ActiveReportLine(
      {load, JavaVersion(Properties(vm, agent.jvmti)), g_pool ? g_pool->record_size() : 0,
       g_pool ? g_pool->Stats().outstanding : 0, BindName(agent.options.bind), ActiveOptions()});
}

// Startup (-agentpath): a failure leaves the agent inactive and the JVM running, unless
// onerror=abort. Attach: a failure is the attacher's (jcmd, jattach, the Attach API report it),
// and HotSpot unloads the library.
jint StartAgent(JavaVM* vm, const char* options, bool late) {
  AgentState& agent = Agent();
  if (agent.status.load() == AgentStatus::kActive) {
    LogInfo("already active in this JVM; options '%s' ignored", options ? options : "");
    ReportLoad(ParseOptions(options).options.report_path, ActiveLine(vm, agent, "again"));
    return JNI_OK;
  }
  OptionsParseResult parsed = ParseOptions(options);
  agent.options = parsed.options;
  // The identity channel binds every record at its thread's first publish, whatever bind= says:
  // the log line, the load report and the stats all say so.
  if (agent.options.channel == Channel::kIdentity) {
    agent.options.bind = BindAt::kFirstUse;
    agent.options.thread_index = true;  // the channel itself
  }
  SetLogLevel(agent.options.log);
  const std::string options_text = WithoutReport(options);
  std::string error = parsed.ok() ? Activate(vm, agent, late, options_text) : parsed.error;
  if (error.empty()) {
    ActiveOptions() = options_text;
    ReportLoad(agent.options.report_path, ActiveLine(vm, agent, late ? "attached" : "startup"));
    return JNI_OK;
  }
  ReportLoad(agent.options.report_path, InactiveReportLine(error));
  agent.status.store(AgentStatus::kInactive);
  const bool abort_on_error = agent.options.on_error == OnError::kAbort;
  // Whatever log= says: a load that failed must be seen.
  LogAlways("%s; %s", error.c_str(),
            late             ? "the attach fails and vtctx is not loaded"
            : abort_on_error ? "aborting (onerror=abort)"
                             : "vtctx is inactive and the JVM continues (onerror=abort to fail "
                               "instead)");
  // Distinct codes for the attacher (jcmd prints "return code: N"; async-profiler does the same):
  // JNI_EINVAL (-6) for options that do not parse, JNI_ERR (-1) for a start that failed.
  if (!late && !abort_on_error) return JNI_OK;
  return parsed.ok() ? JNI_ERR : JNI_EINVAL;
}

}  // namespace
}  // namespace vtctx

extern "C" {

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM* vm, char* options, void*) {
  return vtctx::StartAgent(vm, options, /*late=*/false);
}

JNIEXPORT jint JNICALL Agent_OnAttach(JavaVM* vm, char* options, void*) {
  return vtctx::StartAgent(vm, options, /*late=*/true);
}

// Called at VM shutdown. Memory is deliberately not released (see agentState.h).
JNIEXPORT void JNICALL Agent_OnUnload(JavaVM*) { vtctx::WriteStatsFileOnce(); }

}  // extern "C"
