// The code of a live HotSpot JVM, as the user-stack unwinder (userStackUnwind.h) asks about it:
// which code blob holds a pc, and its frame facts, read from the JVM's own memory at the moment
// of asking (code compiled or freed during a profile is seen as it is then). Located by name
// through gHotSpotVMStructs (vmStructs.h): CodeCache::_heaps, each CodeHeap's reserved range and
// segment map (the map HotSpot's own CodeHeap::find_blob walks back from a pc's segment to its
// block's first), the block's HeapBlock header, and the CodeBlob fields _size, _frame_size,
// _frame_complete_offset and _code_offset (JDK 23+) or _code_begin; the interpreter's code is
// AbstractInterpreter::_code's StubQueue buffer. Native code is every executable file mapping and
// the vDSO.
//
// The JVM is not trusted: every value read is bounded (segment-map walks, blob sizes, frame
// sizes), a failed read is "not code", never a guess.
#ifndef VTCTX_READER_CODE_CACHE_VIEW_H_
#define VTCTX_READER_CODE_CACHE_VIEW_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "hotspot/userStackUnwind.h"
#include "hotspot/vmStructs.h"
#include "target/nativeFrames.h"
#include "target/procMaps.h"
#include "target/processMemory.h"

namespace vtctx::reader {

// Offsets and addresses named by the JVM's VMStructs.
struct CodeCacheLayout {
  uint64_t heaps = 0;  // &CodeCache::_heaps (a GrowableArray<CodeHeap*>*)
  uint64_t array_len = 0;
  uint64_t array_data = 0;
  uint64_t heap_memory = 0;  // CodeHeap::_memory, a VirtualSpace
  uint64_t heap_segmap = 0;  // CodeHeap::_segmap, a VirtualSpace
  uint64_t heap_log2_segment = 0;
  uint64_t space_low = 0;                      // VirtualSpace::_low_boundary
  uint64_t space_high = 0;                     // VirtualSpace::_high_boundary
  uint64_t block_header = 0, header_used = 0;  // HeapBlock::_header, HeapBlock::Header::_used
  uint64_t block_used = 0;                     // their sum
  uint64_t block_size = 0;                     // sizeof(HeapBlock): the blob follows its header
  uint64_t blob_size = 0;
  uint64_t blob_frame_size = 0;
  uint64_t blob_frame_complete = 0;
  bool frame_complete_16 = false;            // int16_t (JDK 23+, with CodeBlob::_kind), else int
  std::optional<uint64_t> blob_code_offset;  // int (JDK 23+)
  std::optional<uint64_t> blob_code_begin;   // address (before)
  // Where a compiled frame's prologue starts and its stubs begin (InterruptedFrame):
  // CodeBlob::_name
  // ("nmethod"), nmethod::_stub_offset (from the blob), and the verified entry as
  // nmethod::_verified_entry_offset (uint16_t from the code, JDK 23+) or _verified_entry_point.
  std::optional<uint64_t> blob_name;
  std::optional<uint64_t> nmethod_stub_offset;
  std::optional<uint64_t> nmethod_entry_offset;
  std::optional<uint64_t> nmethod_entry_point;
  uint64_t interpreter_code = 0;  // &AbstractInterpreter::_code (a StubQueue*)
  uint64_t stub_buffer = 0;
  uint64_t buffer_limit = 0;

  // FailedPrecondition naming the first field the tables do not have.
  static absl::StatusOr<CodeCacheLayout> Find(const VmStructs& vm);
};

// One code heap's reserved range and segment map.
struct CodeHeapRange {
  uint64_t low = 0;
  uint64_t high = 0;
  uint64_t segmap = 0;
  uint32_t log2_segment = 0;
};

class CodeCacheView final : public CodeLookup {
 public:
  // Reads the heaps and the interpreter's range now (fixed for the JVM's life). `memory` must
  // outlive the view; `maps` gives the executable file mappings.
  static absl::StatusOr<std::unique_ptr<CodeCacheView>> Open(MemoryReader& memory,
                                                             const VmStructs& vm,
                                                             const std::vector<Mapping>& maps);

  // The start of the code blob (CodeBlob*) whose block in a code heap holds `pc`; nullopt: no
  // allocated block holds it. The blob's own size is not checked here.
  std::optional<uint64_t> BlobStart(uint64_t pc);
  std::optional<CodeFacts> JavaCode(uint64_t pc) override;
  bool NativeCode(uint64_t pc) override;
  // Decodes the nmethod's prologue from its verified entry, or its epilogue at the pc; other
  // blobs: the epilogue rules after their frame-complete offset, kUnknown before it.
  FrameBuilt InterruptedFrame(uint64_t pc, const CodeFacts& facts) override;
  std::optional<uint64_t> ContinuationEntryBytes() override { return entry_bytes_; }
  // Native frames by their files' CFI (`frames` outlives the view; null: frame pointers only).
  void set_native_frames(NativeFrames* frames) { native_frames_ = frames; }
  std::optional<FrameState> NativeCfiCaller(const FrameState& frame, uint64_t at,
                                            const StackCopy& copy) override {
    return native_frames_ != nullptr ? native_frames_->Caller(frame, at, copy) : std::nullopt;
  }

  uint64_t lookups() const { return lookups_; }

 private:
  CodeCacheView(MemoryReader& memory, CodeCacheLayout layout) : memory_(memory), layout_(layout) {}
  std::optional<uint64_t> BlobIn(const CodeHeapRange& heap, uint64_t pc);
  // An nmethod's verified entry and first stub; nullopt: another blob, or not readable.
  struct NmethodBounds {
    uint64_t entry = 0;
    uint64_t stubs = 0;
  };
  std::optional<NmethodBounds> NmethodAt(const CodeFacts& facts);
  // The blob's CodeBlob::_name (at most 15 characters); nullopt: not readable.
  std::optional<std::string> BlobName(uint64_t blob);

  MemoryReader& memory_;
  const CodeCacheLayout layout_;
  std::vector<CodeHeapRange> heaps_;
  uint64_t interpreter_low_ = 0;
  uint64_t interpreter_high_ = 0;
  std::vector<std::pair<uint64_t, uint64_t>> native_;  // executable file mappings, sorted
  std::optional<uint64_t> entry_bytes_;                // sizeof(ContinuationEntry), aligned to 16
  NativeFrames* native_frames_ = nullptr;
  uint64_t lookups_ = 0;
};

}  // namespace vtctx::reader

#endif  // VTCTX_READER_CODE_CACHE_VIEW_H_
