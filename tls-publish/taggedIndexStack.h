// A lock-free LIFO of nodes named by 32-bit indexes (1-based; 0 = none), safe against ABA.
//
// The head packs {index, tag} in one 64-bit word; every successful push or pop bumps the tag, so a
// stale head can never be CAS'ed back in (it would take 2^32 operations between a read and its
// CAS). Links are never unmapped while the stack lives, so reading the link of a node that another
// thread has just popped is harmless (whatever it reads, even zeroes of a page given back to the
// OS): the value is discarded when the CAS fails.
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

  void Push(uint32_t index) { PushChain(index, index); }

  // Pushes nodes already linked first -> ... -> last (the caller set every link but last's).
  void PushChain(uint32_t first, uint32_t last) {
    uint64_t head = head_.load(std::memory_order_relaxed);
    do {
      Link(last).store(IndexOf(head), std::memory_order_relaxed);
    } while (!head_.compare_exchange_weak(head, Pack(first, TagOf(head) + 1),
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

  // Detaches the whole stack and returns its top (0 when empty); the caller owns every node and
  // walks them through their links.
  uint32_t PopAll() {
    uint64_t head = head_.load(std::memory_order_acquire);
    while (IndexOf(head) != 0 &&
           !head_.compare_exchange_weak(head, Pack(0, TagOf(head) + 1), std::memory_order_acquire,
                                        std::memory_order_acquire)) {
    }
    return IndexOf(head);
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
