// Native costs of the agent's own work, without the JVM's event delivery:
//  - Mount+Unmount handler bodies (JVMTI TLS replaced by a plain slot: the JVM's cost of
//    GetThreadLocalStorage is measured end to end instead, see benchmarks/e2e);
//  - record rewrite with the in-place protocol;
//  - pool take+return, steady state (cache hits) and churning through the shared stack (records
//    never written, and written), with 1 and 2 threads;
//  - a trim of an idle pool (the maintenance thread's work, never on an event).
#include <benchmark/benchmark.h>

#include <vector>

#include "handlerBodies.h"
#include "recordWriter.h"

namespace vtctx {
namespace {

struct SlotBinding {
  void** slot;
  void* Get() const { return *slot; }
  bool Set(void* p) const {
    *slot = p;
    return true;
  }
};

RecordPool& Pool() {
  static RecordPool* pool = [] {
    auto* p = new RecordPool();
    p->EnableTrimRequests();  // as in the agent: spills check the trim policy
    return p;
  }();
  return *pool;
}

void BM_MountUnmountPair(benchmark::State& state) {
  ThreadState carrier;
  void* carrier_tls = nullptr;
  OnThreadStartBody(SlotBinding{&carrier_tls}, &carrier, Pool(), false);
  void* vthread_tls = nullptr;
  OnMountBody(SlotBinding{&vthread_tls}, &carrier, Pool(),
              BindAt::kFirstMount);  // binds the record once
  OnUnmountBody(&carrier);
  for (auto _ : state) {
    OnMountBody(SlotBinding{&vthread_tls}, &carrier, Pool(), BindAt::kFirstMount);
    OnUnmountBody(&carrier);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_MountUnmountPair);

void BM_RecordRewrite(benchmark::State& state) {
  ThreadContextRecord record{};
  uint8_t trace[16] = {1, 2, 3}, span[8] = {4, 5, 6};
  for (auto _ : state) {
    span[0]++;
    WriteTraceContext(&record, trace, span, 1);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_RecordRewrite);

// A virtual thread's lifetime as the pool sees it: one take, one return, same thread.
void BM_PoolTakeReturn(benchmark::State& state) {
  RecordCache cache;
  for (auto _ : state) {
    ThreadContextRecord* r = Pool().Take(cache);
    benchmark::DoNotOptimize(r);
    Pool().Return(cache, r);
  }
  Pool().Flush(cache);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_PoolTakeReturn)->Threads(1)->Threads(2);

// Bursts of 64 takes then 64 returns: every burst refills and spills through the shared lock-free
// stack (the path taken when Start and End of a thread run on different carriers).
void BM_PoolTakeReturnBurst64(benchmark::State& state) {
  RecordCache cache;
  std::vector<ThreadContextRecord*> held(64);
  for (auto _ : state) {
    for (auto& r : held) r = Pool().Take(cache);
    for (auto* r : held) Pool().Return(cache, r);
  }
  Pool().Flush(cache);
  state.SetItemsProcessed(state.iterations() * 64);
}
BENCHMARK(BM_PoolTakeReturnBurst64)->Threads(1)->Threads(2);

// The same with a context written into every record, as threads that published: Return zeroes
// them. (Returning a record right after writing it would time a store-forwarding stall of the
// zero check's wide loads, which no thread's End runs into.)
void BM_PoolTakeWriteReturnBurst64(benchmark::State& state) {
  RecordCache cache;
  std::vector<ThreadContextRecord*> held(64);
  const uint8_t trace[16] = {1, 2, 3}, span[8] = {4, 5, 6};
  for (auto _ : state) {
    for (auto& r : held) {
      r = Pool().Take(cache);
      if (r == nullptr) return state.SkipWithError("pool exhausted");
      WriteTraceContext(r, trace, span, 1);
    }
    for (auto* r : held) Pool().Return(cache, r);
  }
  Pool().Flush(cache);
  state.SetItemsProcessed(state.iterations() * 64);
}
BENCHMARK(BM_PoolTakeWriteReturnBurst64)->Threads(1)->Threads(2);

// Trim of a pool whose state(0) records were all written and returned: the walk of the free
// records, the madvise calls and the relinking. Per record.
void BM_PoolTrimIdle(benchmark::State& state) {
  const auto n = static_cast<size_t>(state.range(0));
  std::vector<ThreadContextRecord*> held(n);
  const uint8_t trace[16] = {1, 2, 3}, span[8] = {4, 5, 6};
  for (auto _ : state) {
    state.PauseTiming();
    RecordPool pool;
    RecordCache cache;
    for (auto& r : held) {
      r = pool.Take(cache);
      if (r == nullptr) return state.SkipWithError("pool exhausted");
      WriteTraceContext(r, trace, span, 1);
    }
    for (auto* r : held) pool.Return(cache, r);
    pool.Flush(cache);
    state.ResumeTiming();
    benchmark::DoNotOptimize(pool.Trim());
  }
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_PoolTrimIdle)->Arg(1 << 16)->Arg(1 << 20)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace vtctx

BENCHMARK_MAIN();
