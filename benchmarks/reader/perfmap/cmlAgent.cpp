// Measurement agent for docs/reader.md "Java frames": what writing the perf map from JVMTI events
// would cost the target. Enables can_generate_compiled_method_load_events, writes one perf-map line
// per CompiledMethodLoad/DynamicCodeGenerated event (name resolved with GetMethodName and
// GetClassSignature, as an agent-written map must), and reports GenerateEvents' time at attach on
// stderr, then the callbacks' total time and count in <map>.stats every 200 ms. Not part of vtctx.
#include <jvmti.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>

namespace {
jvmtiEnv* g_jvmti;
FILE* g_map;
std::atomic<long long> g_ns{0}, g_events{0};

long long Now() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

void JNICALL OnLoad(jvmtiEnv* jvmti, jmethodID method, jint size, const void* address, jint,
                    const jvmtiAddrLocationMap*, const void*) {
  const long long start = Now();
  char *name = nullptr, *sig = nullptr, *cls = nullptr;
  jclass klass;
  jvmti->GetMethodName(method, &name, &sig, nullptr);
  jvmti->GetMethodDeclaringClass(method, &klass);
  jvmti->GetClassSignature(klass, &cls, nullptr);
  fprintf(g_map, "%lx %x %s%s%s\n", (unsigned long)address, size, cls ? cls : "?",
          name ? name : "?", sig ? sig : "");
  jvmti->Deallocate((unsigned char*)name);
  jvmti->Deallocate((unsigned char*)sig);
  jvmti->Deallocate((unsigned char*)cls);
  g_ns += Now() - start;
  g_events++;
}

void JNICALL OnDynamic(jvmtiEnv*, const char* name, const void* address, jint length) {
  const long long start = Now();
  fprintf(g_map, "%lx %x %s\n", (unsigned long)address, length, name);
  g_ns += Now() - start;
  g_events++;
}

char g_stats[4096];

void* Report(void*) {
  for (;;) {
    usleep(200000);
    if (FILE* f = fopen(g_stats, "w")) {
      fprintf(f, "{\"cml_events\":%lld,\"cml_callback_ns\":%lld}\n", g_events.load(), g_ns.load());
      fclose(f);
    }
  }
  return nullptr;
}
}  // namespace

extern "C" JNIEXPORT jint JNICALL Agent_OnAttach(JavaVM* vm, char* options, void*) {
  vm->GetEnv(reinterpret_cast<void**>(&g_jvmti), JVMTI_VERSION_11);
  g_map = fopen(options, "w");
  snprintf(g_stats, sizeof g_stats, "%s.stats", options);
  jvmtiCapabilities caps{};
  caps.can_generate_compiled_method_load_events = 1;
  if (g_jvmti->AddCapabilities(&caps) != JVMTI_ERROR_NONE) return JNI_ERR;
  jvmtiEventCallbacks cb{};
  cb.CompiledMethodLoad = OnLoad;
  cb.DynamicCodeGenerated = OnDynamic;
  g_jvmti->SetEventCallbacks(&cb, sizeof cb);
  g_jvmti->SetEventNotificationMode(JVMTI_ENABLE, JVMTI_EVENT_COMPILED_METHOD_LOAD, nullptr);
  g_jvmti->SetEventNotificationMode(JVMTI_ENABLE, JVMTI_EVENT_DYNAMIC_CODE_GENERATED, nullptr);
  const long long start = Now();
  g_jvmti->GenerateEvents(JVMTI_EVENT_COMPILED_METHOD_LOAD);
  g_jvmti->GenerateEvents(JVMTI_EVENT_DYNAMIC_CODE_GENERATED);
  fprintf(stderr, "{\"generate_events_ns\":%lld,\"cml_events\":%lld}\n", Now() - start,
          g_events.load());
  g_events = 0;
  g_ns = 0;
  pthread_t t;
  pthread_create(&t, nullptr, Report, nullptr);
  return JNI_OK;
}
