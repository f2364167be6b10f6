// A lock-free LIFO of nodes named by 32-bit indexes (1-based; 0 = none), safe against ABA.
//
// The head packs {index, tag} in one 64-bit word; every successful push or pop bumps the tag, so a
// stale head can never be CAS'ed back in (it would take 2^32 operations between a read and its
// CAS). Nodes are never unmapped while the stack lives, so reading the link of a node that another
// thread has just popped is harmless: the value is discarded when the CAS fails.
//
// The caller stores the "next" link of each node; `LinkOf(index)` returns a reference to it.
#ifndef VTCTX_TLS_PUBLISH_TAGGED_INDEX_STACK_H_
#define VTCTX_TLS_PUBLISH_TAGGED_INDEX_STACK_H_

#include <atomic>
#include <cstdint>

namespace vtctx {

template <typename LinkOf>
class TaggedIndexStack {
 public:
  explicit TaggedIndexStack(LinkOf link_of) : link_of_(link_of) {}

  void Push(uint32_t index) {
    uint64_t head = head_.load(std::memory_order_relaxed);
    do {
      Link(index).store(IndexOf(head), std::memory_order_relaxed);
    } while (!head_.compare_exchange_weak(head, Pack(index, TagOf(head) + 1),
                                          std::memory_order_release, std::memory_order_relaxed));
  }

  // Returns 0 when empty.
  uint32_t Pop() {
    uint64_t head = head_.load(std::memory_order_acquire);
    while (IndexOf(head) != 0) {
      const uint32_t next = Link(IndexOf(head)).load(std::memory_order_relaxed);
      if (head_.compare_exchange_weak(head, Pack(next, TagOf(head) + 1), std::memory_order_acquire,
                                      std::memory_order_acquire)) {
        return IndexOf(head);
      }
    }
    return 0;
  }

 private:
  static uint32_t IndexOf(uint64_t head) { return static_cast<uint32_t>(head); }
  static uint32_t TagOf(uint64_t head) { return static_cast<uint32_t>(head >> 32); }
  static uint64_t Pack(uint32_t index, uint32_t tag) { return (uint64_t{tag} << 32) | index; }
  std::atomic_ref<uint32_t> Link(uint32_t index) {
    return std::atomic_ref<uint32_t>(link_of_(index));
  }

  LinkOf link_of_;
  std::atomic<uint64_t> head_{0};
};

}  // namespace vtctx

#endif  // VTCTX_TLS_PUBLISH_TAGGED_INDEX_STACK_H_
