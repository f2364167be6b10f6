// Entry points: -agentpath at startup (Agent_OnLoad), the attach API / jcmd JVMTI.agent_load
// (Agent_OnAttach), and unload. Both load paths share StartAgent(); a failure is logged once and,
// unless onerror=abort, leaves the JVM running with the agent inactive.
#include <jni.h>
#include <jvmti.h>

#include <new>
#include <string>

#include "agentState.h"
#include "eventHandlers.h"
#include "extensionEvents.h"
#include "log.h"
#include "otelThreadContext.h"
#include "poolTrimmer.h"
#include "processContextInit.h"
#include "stats.h"
#include "threadState.h"

namespace vtctx {

AgentState& Agent() {
  alignas(AgentState) static unsigned char storage[sizeof(AgentState)];
  static AgentState* agent = new (storage) AgentState();  // never destructed
  return *agent;
}

namespace {

// The VM's version (java.version is not set yet while Agent_OnLoad runs; java.vm.version is).
std::string JavaVersion(jvmtiEnv* jvmti) {
  for (const char* property : {"java.version", "java.vm.version"}) {
    char* value = nullptr;
    if (jvmti == nullptr || jvmti->GetSystemProperty(property, &value) != JVMTI_ERROR_NONE ||
        value == nullptr) {
      continue;
    }
    std::string version = value;
    jvmti->Deallocate(reinterpret_cast<unsigned char*>(value));
    return version;
  }
  return "unknown";
}

// Returns "" on success, else the reason (one line) the agent cannot run.
std::string Activate(JavaVM* vm, AgentState& agent, bool late) {
  jvmtiEnv* jvmti = nullptr;
  if (vm->GetEnv(reinterpret_cast<void**>(&jvmti), JVMTI_VERSION_21) != JNI_OK) {
    jvmtiEnv* old = nullptr;
    vm->GetEnv(reinterpret_cast<void**>(&old), JVMTI_VERSION_1_2);
    std::string reason = "this JVM (Java " + JavaVersion(old) +
                         ") has no JVMTI 21: virtual threads need JDK 21 or newer";
    if (old != nullptr) old->DisposeEnvironment();
    return reason;
  }
  jvmtiCapabilities potential{};
  if (jvmti->GetPotentialCapabilities(&potential) != JVMTI_ERROR_NONE ||
      !potential.can_support_virtual_threads) {
    jvmti->DisposeEnvironment();
    return "this JVM (Java " + JavaVersion(jvmti) +
           ") cannot deliver virtual-thread events (can_support_virtual_threads unavailable)";
  }
  jvmtiCapabilities wanted{};
  wanted.can_support_virtual_threads = 1;
  if (jvmtiError err = jvmti->AddCapabilities(&wanted); err != JVMTI_ERROR_NONE) {
    jvmti->DisposeEnvironment();
    return "AddCapabilities(can_support_virtual_threads) failed with JVMTI error " +
           std::to_string(err);
  }
  MountEventIndexes indexes;
  if (std::string error = LookupMountEvents(jvmti, &indexes); !error.empty()) {
    jvmti->DisposeEnvironment();
    return error;
  }
  if (!InitThreadStates()) return "cannot reserve memory for thread states (mmap failed)";
  // The pool is created once and never freed (records must stay mapped while any thread runs).
  static RecordPool* pool = new RecordPool(agent.options.record_size);
  if (!pool->ok()) return "cannot reserve address space for records (mmap failed)";
  g_pool = pool;
  if (!StartPoolTrimmer(*pool))
    LogError("cannot start the pool trimmer thread; idle records keep their memory");
  g_bind = agent.options.bind;
  agent.jvmti = jvmti;
  agent.attached_late = late;
  // Resolve our TLS descriptor now so external readers see its final value from the start.
  TouchThreadContextSlot();
  // OTEP 4719: tells readers our records' schema and attribute names. Thread context works without
  // it (trace and span ids are readable), so a failure is reported but does not stop the agent.
  ProcessContextOutcome context = PublishProcessContextOnce(jvmti, agent.options);
  if (!context.error.empty()) LogError("process context not published: %s", context.error.c_str());
  // Handlers and natives may run as soon as events are on: mark active first.
  agent.status.store(AgentStatus::kActive, std::memory_order_release);
  if (std::string error = EnableEvents(jvmti, indexes, agent.options, late); !error.empty()) {
    agent.status.store(AgentStatus::kInactive, std::memory_order_release);
    // Whatever was enabled keeps working correctly on its own (End/Unmount before Mount).
    return error;
  }
  LogInfo("active (%s, Java %s, %zu-byte records, bind=%s, %s%s)", late ? "attached" : "startup",
          JavaVersion(jvmti).c_str(), pool->record_size(), BindName(agent.options.bind),
          context.error.empty() ? context.summary.c_str() : "no process context",
          agent.options.fault == Fault::kStaleCarrier ? ", TEST FAULT stale-carrier" : "");
  return {};
}

jint StartAgent(JavaVM* vm, const char* options, bool late) {
  AgentState& agent = Agent();
  if (agent.status.load() == AgentStatus::kActive) {
    LogInfo("already active in this JVM; options '%s' ignored", options ? options : "");
    return JNI_OK;
  }
  OptionsParseResult parsed = ParseOptions(options);
  agent.options = parsed.options;
  SetLogLevel(agent.options.log);
  const bool abort_on_error = agent.options.on_error == OnError::kAbort;
  std::string error = parsed.ok() ? Activate(vm, agent, late) : parsed.error;
  if (error.empty()) return JNI_OK;
  agent.status.store(AgentStatus::kInactive);
  LogError("%s; %s", error.c_str(),
           abort_on_error
               ? "aborting (onerror=abort)"
               : "vtctx is inactive and the JVM continues (onerror=abort to fail instead)");
  return abort_on_error ? JNI_ERR : JNI_OK;
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
