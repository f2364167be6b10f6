// Which channel a vtctx writer runs and where its thread index is, as its OTEP 4719 process
// context says (extra attributes vtctx.channel, vtctx.identity.index, vtctx.identity.layout:
// docs/protocol.md, "Identity channel").
#ifndef VTCTX_READER_WRITER_CHANNEL_H_
#define VTCTX_READER_WRITER_CHANNEL_H_

#include <cstdint>
#include <string>

#include "target/processContextReader.h"

namespace vtctx::reader {

struct WriterChannel {
  std::string channel;      // "carrier", "identity", or "" (no vtctx context: carrier semantics)
  uint64_t index = 0;       // the thread index header's address, 0 if none is named
  std::string index_error;  // why a named index cannot be used ("" if it can or none is named)
};

WriterChannel WriterChannelOf(const ProcessContext& context);

}  // namespace vtctx::reader

#endif  // VTCTX_READER_WRITER_CHANNEL_H_
