#include "writerWatch.h"

#include <fcntl.h>
#include <link.h>
#include <unistd.h>

#include <atomic>
#include <charconv>
#include <string>

#include "agentState.h"
#include "loadedWriters.h"
#include "log.h"
#include "processContextInit.h"
#include "shimLink.h"
#include "vtctx/record.h"

namespace vtctx {
namespace {

constexpr size_t kMaxMapsBytes = 16u << 20;  // a JVM's maps are ~100 KiB

std::atomic<bool> g_disabled{false};
std::atomic<uint64_t> g_other_writers{0};
std::atomic<uint64_t> g_other_contexts{0};
bool g_shims_told = false;
unsigned long long g_loads_seen = 0;  // the dynamic loader's load count at the last look

int LoadCount(dl_phdr_info* info, size_t, void* out) {
  *static_cast<unsigned long long*>(out) = info->dlpi_adds;
  return 1;  // the first object carries the counters
}

std::string ReadSelfMaps() {
  std::string text;
  const int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return text;
  char buffer[16384];
  for (ssize_t n; (n = read(fd, buffer, sizeof buffer)) > 0 && text.size() < kMaxMapsBytes;) {
    text.append(buffer, static_cast<size_t>(n));
  }
  close(fd);
  return text;
}

void Disable(const char* what) {
  if (g_disabled.exchange(true)) return;
  LogAlways(
      "%s: readers may now follow the other writer or name vtctx's record attributes by its "
      "keys; vtctx stops writing record attributes (trace and span ids stay published)",
      what);
}

}  // namespace

void CheckForOtherWriters(jvmtiEnv* jvmti, JNIEnv* jni) {
  unsigned long long loads = 0;
  dl_iterate_phdr(LoadCount, &loads);
  if (loads != g_loads_seen && g_other_writers.load() == 0) {
    g_loads_seen = loads;
    if (const OtherWriter other = FindOtherThreadContextWriter(); !other.path.empty()) {
      g_other_writers.store(1);
      const std::string what = "another OTEP 4947 writer was loaded after vtctx: " + other.path +
                               " defines " VTCTX_TLS_SYMBOL;
      Disable(what.c_str());
    }
  }
  if (g_other_contexts.load() == 0) {
    const ProcessContextPublisher* own = PublishedProcessContext();
    if (CountOtherContextMappings(ReadSelfMaps(), own ? own->header() : nullptr) > 0) {
      g_other_contexts.store(1);
      Disable("another OTEP 4719 process context (an OTEL_CTX mapping) appeared besides vtctx's");
    }
  }
  if (g_disabled.load() && !g_shims_told && jni != nullptr) {
    g_shims_told = TellShimsAttributesOff(jvmti, jni, Agent().options.shim_loaders).error.empty();
  }
}

bool AttributesDisabled() { return g_disabled.load(std::memory_order_relaxed); }
uint64_t OtherWritersFound() { return g_other_writers.load(std::memory_order_relaxed); }
uint64_t OtherProcessContextsFound() { return g_other_contexts.load(std::memory_order_relaxed); }

}  // namespace vtctx
