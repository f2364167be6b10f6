// Keeps a streaming command's view of the target's process context current, cheaply.
//
// Key indexes are append-only and a writer raises an index into use only after the payload naming
// it is published. So an event carrying an index the current names lack means: the context was
// republished after our last read, or the index is one no key map names (a writer bug, or no
// usable context). The watch re-reads lazily, on such events only, and never more than can help:
//
// - an event older than the last check (its CLOCK_MONOTONIC timestamp is below the time that
//   check started) is not checked again: that check already saw every publication that preceded
//   the event, so it named everything it could;
// - a check reads only published_at_ns (8 bytes); the payload is re-read and decoded only when the
//   timestamp changed (at most once per publication: one per registered key);
// - while no mapping is known (absent, or ambiguous), /proc/<pid>/maps is rescanned at most once
//   per kRescanIntervalNs.
// So at most one 8-byte read per batch of events that arrived after the previous check, whatever
// the event rate. A change of status (context appears, becomes unreadable) is reported on stderr
// once by the caller through Describe*.
#ifndef VTCTX_READER_PROCESS_CONTEXT_WATCH_H_
#define VTCTX_READER_PROCESS_CONTEXT_WATCH_H_

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "target/attributeNames.h"
#include "target/procMaps.h"
#include "target/processContextReader.h"
#include "target/processMemory.h"

namespace vtctx::reader {

inline constexpr uint64_t kRescanIntervalNs = 1'000'000'000;

class ProcessContextWatch {
 public:
  using MapsSource = std::function<absl::StatusOr<std::vector<Mapping>>()>;
  using Clock = std::function<uint64_t()>;  // CLOCK_MONOTONIC ns, the clock of BPF timestamps

  // Reads the context once. `memory` must outlive the watch.
  ProcessContextWatch(MapsSource maps, MemoryReader& memory, Clock now);
  // A live process through its /proc directory `proc_dir` (its maps, the monotonic clock).
  static std::unique_ptr<ProcessContextWatch> ForProcess(std::string proc_dir,
                                                         MemoryReader& memory);

  const ProcessContext& context() const { return context_; }
  const AttributeNames& names() const { return names_; }

  // For an event at `event_ns` whose attrs-data `attrs` may carry unnamed indexes: re-reads the
  // context if that can name them (rules above). Returns true when the context changed (status,
  // timestamp or names): the caller may report it.
  bool Refresh(std::span<const uint8_t> attrs, uint64_t event_ns);
  // The same without attrs: an event known to need a name.
  bool RefreshFor(uint64_t event_ns);

  uint64_t checks() const { return checks_; }    // published_at_ns reads and maps rescans
  uint64_t rereads() const { return rereads_; }  // full reads (payload decoded)

 private:
  void ReadAll(const std::vector<Mapping>& maps);

  MapsSource maps_;
  MemoryReader& memory_;
  Clock now_;
  ProcessContext context_;
  AttributeNames names_;
  uint64_t last_check_ns_ = 0;  // start of the last check
  uint64_t last_scan_ns_ = 0;   // start of the last maps scan
  static constexpr uint64_t kNoTimestamp = ~0ull;
  uint64_t failed_published_at_ = kNoTimestamp;  // timestamp whose full read failed
  uint64_t checks_ = 0;
  uint64_t rereads_ = 0;
};

}  // namespace vtctx::reader

#endif  // VTCTX_READER_PROCESS_CONTEXT_WATCH_H_
