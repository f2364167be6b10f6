#include "hotspot/codeCacheView.h"

#include <algorithm>
#include <array>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "hotspot/frameConstruction.h"
#include "hotspot/hotspotNames.h"

namespace vtctx::reader {
namespace {

constexpr size_t kMaxHeaps = 8;           // HotSpot has at most 3 (segmented code cache)
constexpr uint64_t kSegmapWindow = 4096;  // segment-map bytes read per window
constexpr int kMaxSegmapWindows = 64;     // a blob of 64 Ki segments at most (8 MiB at 128 B)
constexpr uint64_t kMaxBlobBytes = 64 << 20;
constexpr int64_t kMaxFrameWords = 1 << 16;  // 512 KiB: larger than any copy of a stack
constexpr uint8_t kFreeSegment = 0xff;       // CodeHeap's free_sentinel
constexpr uint64_t kMaxFieldOffset = 1024;   // CodeBlob's header fields lie in its first bytes
constexpr uint64_t kMaxPrologueBytes = 128;  // stack bangs, push, sub, store and padding
constexpr uint64_t kBodyBytesBefore = 8;     // the longest epilogue instruction before a pc
constexpr uint64_t kBodyBytesAt = 16;

int64_t ReadInt(const uint8_t* bytes, uint64_t offset, bool is16) {
  if (is16) {
    int16_t v = 0;
    std::memcpy(&v, bytes + offset, sizeof v);
    return v;
  }
  int32_t v = 0;
  std::memcpy(&v, bytes + offset, sizeof v);
  return v;
}

}  // namespace

absl::StatusOr<CodeCacheLayout> CodeCacheLayout::Find(const VmStructs& vm) {
  CodeCacheLayout l;
  if (absl::Status s = vm.Find({VTCTX_CODE_CACHE_NAMES(VTCTX_FIND_ROW)}); !s.ok()) return s;
  l.block_used = l.block_header + l.header_used;
  l.blob_code_offset = vm.Offset("CodeBlob", "_code_offset");
  l.blob_code_begin = vm.Offset("CodeBlob", "_code_begin");
  if (!l.blob_code_offset && !l.blob_code_begin) {
    return absl::FailedPreconditionError(
        "HotSpot's VMStructs do not name CodeBlob::_code_offset or _code_begin");
  }
  // JDK 23 packed CodeBlob's header, making _frame_complete_offset an int16_t, and added _kind.
  l.frame_complete_16 = vm.Offset("CodeBlob", "_kind").has_value();
  l.blob_name = vm.Offset("CodeBlob", "_name");
  l.nmethod_stub_offset = vm.Offset("nmethod", "_stub_offset");
  l.nmethod_entry_offset = vm.Offset("nmethod", "_verified_entry_offset");
  l.nmethod_entry_point = vm.Offset("nmethod", "_verified_entry_point");
  for (uint64_t off :
       {l.blob_size, l.blob_frame_size, l.blob_frame_complete, l.blob_code_offset.value_or(0),
        l.blob_code_begin.value_or(0), l.blob_name.value_or(0), l.nmethod_stub_offset.value_or(0),
        l.nmethod_entry_offset.value_or(0), l.nmethod_entry_point.value_or(0)}) {
    if (off > kMaxFieldOffset) return absl::InvalidArgumentError("CodeBlob field offset too large");
  }
  if (l.block_size == 0 || l.block_size > 64 || l.block_used >= l.block_size) {
    return absl::InvalidArgumentError("implausible HeapBlock layout");
  }
  return l;
}

absl::StatusOr<std::unique_ptr<CodeCacheView>> CodeCacheView::Open(
    MemoryReader& memory, const VmStructs& vm, const std::vector<Mapping>& maps) {
  absl::StatusOr<CodeCacheLayout> layout = CodeCacheLayout::Find(vm);
  if (!layout.ok()) return layout.status();
  std::unique_ptr<CodeCacheView> view(new CodeCacheView(memory, *layout));
  const CodeCacheLayout& l = view->layout_;
  absl::StatusOr<uint64_t> array = memory.ReadU64(l.heaps);
  if (!array.ok()) return array.status();
  int32_t len = 0;
  if (absl::Status s = memory.Read(*array + l.array_len, &len, sizeof len); !s.ok()) return s;
  if (len <= 0 || static_cast<size_t>(len) > kMaxHeaps) {
    return absl::InvalidArgumentError(absl::StrCat("implausible code heap count ", len));
  }
  absl::StatusOr<uint64_t> data = memory.ReadU64(*array + l.array_data);
  if (!data.ok()) return data.status();
  for (int i = 0; i < len; i++) {
    absl::StatusOr<uint64_t> heap = memory.ReadU64(*data + 8 * static_cast<uint64_t>(i));
    if (!heap.ok()) return heap.status();
    CodeHeapRange r;
    absl::StatusOr<uint64_t> low = memory.ReadU64(*heap + l.heap_memory + l.space_low);
    absl::StatusOr<uint64_t> high = memory.ReadU64(*heap + l.heap_memory + l.space_high);
    absl::StatusOr<uint64_t> segmap = memory.ReadU64(*heap + l.heap_segmap + l.space_low);
    int32_t log2 = 0;
    absl::Status s = memory.Read(*heap + l.heap_log2_segment, &log2, sizeof log2);
    if (!low.ok() || !high.ok() || !segmap.ok() || !s.ok()) {
      return absl::InvalidArgumentError("unreadable code heap");
    }
    if (*high <= *low || log2 < 4 || log2 > 16) {
      return absl::InvalidArgumentError("implausible code heap");
    }
    r.low = *low;
    r.high = *high;
    r.segmap = *segmap;
    r.log2_segment = static_cast<uint32_t>(log2);
    view->heaps_.push_back(r);
  }
  absl::StatusOr<uint64_t> queue = memory.ReadU64(l.interpreter_code);
  if (!queue.ok()) return queue.status();
  absl::StatusOr<uint64_t> buffer = memory.ReadU64(*queue + l.stub_buffer);
  int32_t limit = 0;
  if (!buffer.ok()) return buffer.status();
  if (absl::Status s = memory.Read(*queue + l.buffer_limit, &limit, sizeof limit); !s.ok()) {
    return s;
  }
  if (limit <= 0) return absl::InvalidArgumentError("implausible interpreter code size");
  view->interpreter_low_ = *buffer;
  view->interpreter_high_ = *buffer + static_cast<uint64_t>(limit);
  // Virtual threads (JDK 21+): bounded like any size from the target.
  if (const std::optional<uint64_t> entry = vm.TypeSize("ContinuationEntry");
      entry && *entry > 0 && *entry <= 256) {
    view->entry_bytes_ = (*entry + 15) & ~uint64_t{15};
  }
  for (const Mapping& m : maps) {
    if (m.executable && (m.IsFile() || m.path == "[vdso]")) {
      view->native_.emplace_back(m.start, m.end);
    }
  }
  std::sort(view->native_.begin(), view->native_.end());
  return view;
}

// The start of the code blob whose block holds `pc`, walking the segment map back as
// CodeHeap::find_block_for does; nullopt for a free segment or block.
std::optional<uint64_t> CodeCacheView::BlobIn(const CodeHeapRange& heap, uint64_t pc) {
  uint64_t segment = (pc - heap.low) >> heap.log2_segment;
  std::array<uint8_t, kSegmapWindow> window;
  for (int w = 0; w < kMaxSegmapWindows; w++) {
    const uint64_t first = segment + 1 > kSegmapWindow ? segment + 1 - kSegmapWindow : 0;
    const size_t n = static_cast<size_t>(segment + 1 - first);
    if (!memory_.Read(heap.segmap + first, window.data(), n).ok()) return std::nullopt;
    while (true) {
      const uint8_t back = window[segment - first];
      if (back == kFreeSegment) return std::nullopt;
      if (back == 0) {
        const uint64_t block = heap.low + (segment << heap.log2_segment);
        uint8_t used = 0;
        if (!memory_.Read(block + layout_.block_used, &used, 1).ok() || used == 0) {
          return std::nullopt;
        }
        return block + layout_.block_size;
      }
      if (back > segment) return std::nullopt;
      segment -= back;
      if (segment < first) break;  // on to the window before
    }
  }
  return std::nullopt;
}

std::optional<uint64_t> CodeCacheView::BlobStart(uint64_t pc) {
  for (const CodeHeapRange& heap : heaps_) {
    if (pc >= heap.low && pc < heap.high) return BlobIn(heap, pc);
  }
  return std::nullopt;
}

std::optional<CodeFacts> CodeCacheView::JavaCode(uint64_t pc) {
  lookups_++;
  if (pc >= interpreter_low_ && pc < interpreter_high_) {
    return CodeFacts{CodeKind::kInterpreter, 0, 0};
  }
  const std::optional<uint64_t> blob = BlobStart(pc);
  if (!blob) return std::nullopt;
  std::array<uint8_t, kMaxFieldOffset + 8> header;
  const uint64_t header_bytes =
      std::max({layout_.blob_size + 4, layout_.blob_frame_size + 4, layout_.blob_frame_complete + 4,
                layout_.blob_code_offset.value_or(0) + 4, layout_.blob_code_begin.value_or(0) + 8});
  if (!memory_.Read(*blob, header.data(), header_bytes).ok()) return std::nullopt;
  const int64_t size = ReadInt(header.data(), layout_.blob_size, false);
  const int64_t frame_words = ReadInt(header.data(), layout_.blob_frame_size, false);
  const int64_t complete =
      ReadInt(header.data(), layout_.blob_frame_complete, layout_.frame_complete_16);
  uint64_t code_begin = 0;
  if (layout_.blob_code_offset) {
    const int64_t offset = ReadInt(header.data(), *layout_.blob_code_offset, false);
    if (offset < 0 || offset >= size) return std::nullopt;
    code_begin = *blob + static_cast<uint64_t>(offset);
  } else {
    std::memcpy(&code_begin, header.data() + *layout_.blob_code_begin, sizeof code_begin);
  }
  if (size <= 0 || static_cast<uint64_t>(size) > kMaxBlobBytes ||
      pc - *blob >= static_cast<uint64_t>(size)) {
    return std::nullopt;
  }
  if (code_begin < *blob || code_begin - *blob >= static_cast<uint64_t>(size)) return std::nullopt;
  if (frame_words < 0 || frame_words > kMaxFrameWords) return std::nullopt;
  CodeFacts facts;
  facts.blob = *blob;
  facts.code_begin = code_begin;
  facts.kind = frame_words == 0 ? CodeKind::kFrameless : CodeKind::kCompiled;
  facts.frame_bytes = static_cast<uint64_t>(frame_words) * 8;
  // A negative offset (CodeOffsets::frame_never_safe) says nothing: the frame is trusted.
  facts.frame_complete = complete > 0 ? code_begin + static_cast<uint64_t>(complete) : 0;
  return facts;
}

std::optional<std::string> CodeCacheView::BlobName(uint64_t blob) {
  if (!layout_.blob_name) return std::nullopt;
  uint64_t name_address = 0;
  if (!memory_.Read(blob + *layout_.blob_name, &name_address, sizeof name_address).ok()) {
    return std::nullopt;
  }
  std::array<char, 16> name{};
  if (!memory_.Read(name_address, name.data(), name.size() - 1).ok()) return std::nullopt;
  return std::string(name.data());
}

std::optional<CodeCacheView::NmethodBounds> CodeCacheView::NmethodAt(const CodeFacts& facts) {
  const CodeCacheLayout& l = layout_;
  if (!l.blob_name || !l.nmethod_stub_offset ||
      (!l.nmethod_entry_offset && !l.nmethod_entry_point)) {
    return std::nullopt;
  }
  std::array<uint8_t, kMaxFieldOffset + 8> header;
  const uint64_t header_bytes =
      std::max({*l.nmethod_stub_offset + 4, l.blob_size + 4, l.nmethod_entry_offset.value_or(0) + 2,
                l.nmethod_entry_point.value_or(0) + 8});
  if (!memory_.Read(facts.blob, header.data(), header_bytes).ok()) return std::nullopt;
  // Java methods' code ("nmethod") and native methods' wrappers ("native nmethod").
  const std::optional<std::string> name = BlobName(facts.blob);
  if (name != "nmethod" && name != "native nmethod") return std::nullopt;
  const int64_t size = ReadInt(header.data(), l.blob_size, false);
  const int64_t stub_offset = ReadInt(header.data(), *l.nmethod_stub_offset, false);
  NmethodBounds bounds;
  if (l.nmethod_entry_offset) {
    uint16_t offset = 0;
    std::memcpy(&offset, header.data() + *l.nmethod_entry_offset, sizeof offset);
    bounds.entry = facts.code_begin + offset;
  } else {
    std::memcpy(&bounds.entry, header.data() + *l.nmethod_entry_point, sizeof bounds.entry);
  }
  if (stub_offset <= 0 || stub_offset > size) return std::nullopt;
  bounds.stubs = facts.blob + static_cast<uint64_t>(stub_offset);
  // The entry lies in the code, before the frame is complete and before the stubs.
  if (bounds.entry < facts.code_begin || bounds.entry >= bounds.stubs ||
      (facts.frame_complete != 0 && bounds.entry > facts.frame_complete)) {
    return std::nullopt;
  }
  return bounds;
}

FrameBuilt CodeCacheView::InterruptedFrame(uint64_t pc, const CodeFacts& facts) {
  if (facts.kind != CodeKind::kCompiled || facts.blob == 0) return FrameBuilt::kUnknown;
  const std::optional<NmethodBounds> nmethod = NmethodAt(facts);
  if (pc < facts.frame_complete) {
    if (!nmethod) return FrameBuilt::kUnknown;
    if (pc < nmethod->entry) return FrameBuilt::kNothing;  // the inline-cache check: no frame
    if (pc - nmethod->entry > kMaxPrologueBytes) return FrameBuilt::kUnknown;
    std::array<uint8_t, kMaxPrologueBytes> code;
    const size_t n = static_cast<size_t>(pc - nmethod->entry);
    if (!memory_.Read(nmethod->entry, code.data(), n).ok()) return FrameBuilt::kUnknown;
    return PrologueState(std::span<const uint8_t>(code.data(), n), facts.frame_bytes);
  }
  if (nmethod && pc >= nmethod->stubs) return FrameBuilt::kUnknown;  // poll, barrier, deopt stubs
  std::array<uint8_t, kBodyBytesBefore + kBodyBytesAt> code;
  if (!memory_.Read(pc - kBodyBytesBefore, code.data(), code.size()).ok()) {
    return FrameBuilt::kUnknown;
  }
  const std::span<const uint8_t> bytes(code);
  return BodyState(bytes.first(kBodyBytesBefore), bytes.subspan(kBodyBytesBefore),
                   facts.frame_bytes);
}

bool CodeCacheView::NativeCode(uint64_t pc) {
  auto it = std::upper_bound(native_.begin(), native_.end(), std::make_pair(pc, UINT64_MAX));
  return it != native_.begin() && pc < std::prev(it)->second;
}

}  // namespace vtctx::reader
