#include "target/writerChannel.h"

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "target/untrustedText.h"
#include "vtctx/processContextHeader.h"
#include "vtctx/threadIndex.h"

namespace vtctx::reader {

WriterChannel WriterChannelOf(const ProcessContext& context) {
  WriterChannel out;
  if (!context.ok()) return out;
  std::string index, layout;
  for (const KeyValue& kv : context.payload.extra) {
    if (kv.value.kind != AnyValue::Kind::kString) continue;
    if (kv.key == VTCTX_PCTX_KEY_VTCTX_CHANNEL) out.channel = kv.value.text;
    if (kv.key == VTCTX_PCTX_KEY_VTCTX_IDENTITY_INDEX) index = kv.value.text;
    if (kv.key == VTCTX_PCTX_KEY_VTCTX_IDENTITY_LAYOUT) layout = kv.value.text;
  }
  if (index.empty()) return out;
  uint64_t address = 0;
  if (!absl::StartsWith(index, "0x") ||
      !absl::SimpleHexAtoi(absl::string_view(index).substr(2), &address) || address == 0) {
    out.index_error = absl::StrCat("the process context names no address for the thread index ('",
                                   Printable(index, 40), "')");
    return out;
  }
  if (layout != std::to_string(VTCTX_INDEX_LAYOUT)) {
    out.index_error = absl::StrCat("the thread index has layout '", Printable(layout, 20),
                                   "'; this reader reads layout ", VTCTX_INDEX_LAYOUT);
    return out;
  }
  out.index = address;
  return out;
}

}  // namespace vtctx::reader
