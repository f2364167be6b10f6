// Reader-side costs of finding a thread's context in a live process (reader-bpf's resolution
// library, the code `vtctx-reader resolve` and the BPF commands run):
//  - ResolveProcess: the whole resolution of otel_thread_ctx_v1 (/proc maps, every mapped ELF's
//    .dynsym and relocations, the words the dynamic linker wrote), done once per attach;
//  - ReadThreadContext: one thread's slot address from its thread pointer, then its record
//    (pointer, header, attrs-data), as `resolve` does per thread while the thread is stopped.
// The target is this very process with libvtctx.so dlopen'ed (TLSDESC in static TLS, as with a
// late attach), and this thread publishing a record through it: every iteration checks that the
// resolution finds exactly that record, so a wrong answer fails instead of timing garbage.
#include <benchmark/benchmark.h>
#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "target/processMemory.h"
#include "target/threadSnapshot.h"
#include "target/tlsResolver.h"
#include "vtctx/record.h"

namespace vtctx::reader {
namespace {

// The agent library, dlopen'ed once; VTCTX_AGENT_LIBRARY in the environment overrides the path.
struct Target {
  alignas(64) vtctx_record_header record{};
  void** slot = nullptr;
  const char* error = nullptr;
};

Target& SharedTarget() {
  static Target* target = [] {
    auto* t = new Target();
    const char* path = std::getenv("VTCTX_AGENT_LIBRARY");
    if (path == nullptr) path = VTCTX_AGENT_LIBRARY;
    void* handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    // For a TLS symbol, dlsym gives the calling thread's instance of the variable.
    if (handle != nullptr) t->slot = static_cast<void**>(dlsym(handle, "otel_thread_ctx_v1"));
    if (t->slot == nullptr) {
      t->error = "cannot dlopen the agent or find otel_thread_ctx_v1 in it";
      return t;
    }
    for (int i = 0; i < 16; ++i) t->record.trace_id[i] = static_cast<uint8_t>(i + 1);
    t->record.span_id[0] = 7;
    t->record.valid = 1;
    *t->slot = &t->record;
    return t;
  }();
  return *target;
}

void BM_ResolveProcess(benchmark::State& state) {
  Target& target = SharedTarget();
  if (target.error != nullptr) return state.SkipWithError(target.error);
  for (auto _ : state) {
    absl::StatusOr<std::unique_ptr<ProcessMemory>> memory = ProcessMemory::Open(getpid());
    if (!memory.ok()) return state.SkipWithError(memory.status().ToString().c_str());
    absl::StatusOr<Resolution> resolution = ResolveProcess(getpid(), **memory);
    if (!resolution.ok()) return state.SkipWithError(resolution.status().ToString().c_str());
    if (resolution->modules.size() != 1) return state.SkipWithError("expected one module");
    benchmark::DoNotOptimize(resolution->modules[0].recipe);
  }
}
BENCHMARK(BM_ResolveProcess)->Unit(benchmark::kMicrosecond);

void BM_ReadThreadContext(benchmark::State& state) {
  Target& target = SharedTarget();
  if (target.error != nullptr) return state.SkipWithError(target.error);
  absl::StatusOr<std::unique_ptr<ProcessMemory>> memory = ProcessMemory::Open(getpid());
  if (!memory.ok()) return state.SkipWithError(memory.status().ToString().c_str());
  absl::StatusOr<Resolution> resolution = ResolveProcess(getpid(), **memory);
  if (!resolution.ok()) return state.SkipWithError(resolution.status().ToString().c_str());
  const vtctx_slot_recipe recipe = resolution->modules[0].recipe;
  const auto thread_pointer = reinterpret_cast<uint64_t>(__builtin_thread_pointer());
  for (auto _ : state) {
    absl::StatusOr<uint64_t> slot = SlotAddress(recipe, thread_pointer, **memory);
    if (!slot.ok()) return state.SkipWithError(slot.status().ToString().c_str());
    ThreadSnapshot snapshot;
    ReadContextAt(*slot, **memory, snapshot);
    if (*slot != reinterpret_cast<uint64_t>(target.slot) ||
        snapshot.record != reinterpret_cast<uint64_t>(&target.record) ||
        snapshot.header.valid != 1) {
      return state.SkipWithError("resolution did not find this thread's record");
    }
  }
}
BENCHMARK(BM_ReadThreadContext);

}  // namespace
}  // namespace vtctx::reader

BENCHMARK_MAIN();
