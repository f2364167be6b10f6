#include "target/writerChannel.h"

#include "target/agentStatusRead.h"
#include "vtctx/processContextHeader.h"
#include "vtctx/threadIndex.h"

namespace vtctx::reader {

WriterChannel WriterChannelOf(const ProcessContext& context) {
  WriterChannel out;
  out.channel = ExtraString(context, VTCTX_PCTX_KEY_VTCTX_CHANNEL);
  absl::StatusOr<uint64_t> index =
      NamedAddress(context, VTCTX_PCTX_KEY_VTCTX_IDENTITY_INDEX,
                   VTCTX_PCTX_KEY_VTCTX_IDENTITY_LAYOUT, VTCTX_INDEX_LAYOUT);
  if (index.ok()) {
    out.index = *index;
  } else if (!absl::IsNotFound(index.status())) {
    out.index_error = std::string(index.status().message());
  }
  return out;
}

}  // namespace vtctx::reader
