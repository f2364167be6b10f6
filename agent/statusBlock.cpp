#include "statusBlock.h"

#include <atomic>
#include <cstddef>

namespace vtctx {
namespace {

static_assert(sizeof(vtctx_agent_status) == VTCTX_STATUS_SIZE);
static_assert(offsetof(vtctx_agent_status, served_origins) == VTCTX_STATUS_OFFSET_SERVED_ORIGINS);
static_assert(offsetof(vtctx_agent_status, shims_served) == VTCTX_STATUS_OFFSET_SHIMS_SERVED);
static_assert(offsetof(vtctx_agent_status, shims_refused) == VTCTX_STATUS_OFFSET_SHIMS_REFUSED);
static_assert(offsetof(vtctx_agent_status, publishing_threads) ==
              VTCTX_STATUS_OFFSET_PUBLISHING_THREADS);

vtctx_agent_status& Block() {
  // Static storage, constant-initialised: mapped for the life of the process.
  alignas(64) static vtctx_agent_status block{VTCTX_STATUS_MAGIC, VTCTX_STATUS_LAYOUT, 0, 0, 0, 0};
  return block;
}

// Every field is a naturally aligned word that other processes read at any time: single stores.
template <typename T>
std::atomic_ref<T> Field(T& field) {
  return std::atomic_ref<T>(field);
}

}  // namespace

const vtctx_agent_status* StatusBlock() { return &Block(); }

void CountShimServed(uint32_t origin) {
  Field(Block().served_origins).fetch_or(origin, std::memory_order_relaxed);
  Field(Block().shims_served).fetch_add(1, std::memory_order_relaxed);
}

void CountShimRefused() { Field(Block().shims_refused).fetch_add(1, std::memory_order_relaxed); }

void CountPublishingThread() {
  Field(Block().publishing_threads).fetch_add(1, std::memory_order_relaxed);
}

}  // namespace vtctx
