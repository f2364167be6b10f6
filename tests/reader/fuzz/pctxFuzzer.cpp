// libFuzzer target for the reader's OTEP 4719 handling: the hand-written protobuf decoder, the
// thread-context interpretation, the rendering of every value, the header/snapshot protocol on
// memory made of the input, and the naming of attrs-data through the decoded key map. Any input
// must give a Status or a result, never a crash, hang or sanitizer report.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "inputMemory.h"
#include "target/attributeNames.h"
#include "target/processContextPayload.h"
#include "target/processContextReader.h"
#include "target/recordFormat.h"

namespace {

using namespace vtctx::reader;

void Exercise(const ProcessContext& context, std::span<const uint8_t> attrs) {
  std::string out = ProcessContextJson(context);
  out += ProcessContextText(context);
  out += DescribeLimitation(context, 1);
  const AttributeNames names = NamesOf(context);
  (void)HasUnnamedIndex(attrs, names);
  ContextView view;
  view.status = VTCTX_CTX_OK;
  view.header.valid = VTCTX_RECORD_VALID;
  view.attrs = attrs;
  AppendContextJson(out, view, &names);
  AppendContextText(out, view, &names);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // 1. The input as a payload, and as attrs-data named by its own key map.
  absl::StatusOr<ProcessContextPayload> payload = DecodeProcessContextPayload({data, size});
  ProcessContext context;
  if (payload.ok()) {
    context.status = ProcessContext::Status::kOk;
    context.mapping_name = "fuzz";
    context.thread = InterpretThreadContext(*payload);
    context.payload = *std::move(payload);
  } else {
    context.status = ProcessContext::Status::kInvalid;
    context.reason = std::string(payload.status().message());
  }
  Exercise(context, {data, size});
  // 2. The input as memory holding a header at 0 (payload wherever the header points). A zero
  // timestamp only makes the reader retry with sched_yield (unit-tested): skipped, it would slow
  // the fuzzer down to the scheduler's pace on a busy machine.
  uint64_t published_at = 0;
  if (size >= VTCTX_PCTX_HEADER_SIZE) {
    std::memcpy(&published_at, data + VTCTX_PCTX_OFFSET_PUBLISHED_AT_NS, sizeof published_at);
  }
  if (published_at != 0) {
    InputMemory memory(data, size);
    Exercise(ReadProcessContextAt(0, "fuzz", memory), {data, size});
  }
  return 0;
}
