#include "target/processContextWatch.h"

#include <utility>

#include "target/monotonicClock.h"

namespace vtctx::reader {

ProcessContextWatch::ProcessContextWatch(MapsSource maps, MemoryReader& memory, Clock now)
    : maps_(std::move(maps)), memory_(memory), now_(std::move(now)) {
  last_check_ns_ = last_scan_ns_ = now_();
  absl::StatusOr<std::vector<Mapping>> m = maps_();
  if (m.ok()) {
    ReadAll(*m);
  } else {
    context_.status = ProcessContext::Status::kInvalid;
    context_.reason = std::string(m.status().message());
  }
}

std::unique_ptr<ProcessContextWatch> ProcessContextWatch::ForProcess(std::string proc_dir,
                                                                     MemoryReader& memory) {
  return std::make_unique<ProcessContextWatch>(
      [dir = std::move(proc_dir)] { return ReadMapsIn(dir); }, memory, MonotonicNs);
}

void ProcessContextWatch::ReadAll(const std::vector<Mapping>& maps) {
  ++rereads_;
  context_ = ReadProcessContext(maps, memory_);
  names_ = NamesOf(context_);
}

bool ProcessContextWatch::Refresh(std::span<const uint8_t> attrs, uint64_t event_ns) {
  if (!HasUnnamedIndex(attrs, names_)) return false;
  return RefreshFor(event_ns);
}

bool ProcessContextWatch::RefreshFor(uint64_t event_ns) {
  if (event_ns < last_check_ns_) return false;  // the last check already covered this event
  const uint64_t start = now_();
  const bool mapped = context_.address != 0 && context_.status != ProcessContext::Status::kAbsent;
  if (!mapped) {
    // No single mapping known: find one, at most once per interval (maps of a JVM are large).
    if (start - last_scan_ns_ < kRescanIntervalNs) return false;
    last_check_ns_ = last_scan_ns_ = start;
    ++checks_;
    absl::StatusOr<std::vector<Mapping>> m = maps_();
    if (!m.ok()) return false;  // target gone: keep what we have
    const ProcessContext::Status before = context_.status;
    const std::string reason = context_.reason;
    ReadAll(*m);
    return context_.status != before || context_.reason != reason;
  }
  last_check_ns_ = start;
  ++checks_;
  absl::StatusOr<uint64_t> published_at = ReadPublishedAt(memory_, context_.address);
  if (!published_at.ok()) return false;  // unmapped (target exiting): keep the last names
  if (context_.ok() && *published_at == context_.header.published_at_ns) return false;
  if (*published_at == failed_published_at_) return false;  // that publication did not read
  ++rereads_;
  ProcessContext next = ReadProcessContextAt(context_.address, context_.mapping_name, memory_);
  if (!next.ok()) {
    // Not again for this publication (a writer updating without pause changes the timestamp, so
    // the next check retries). A context that read before keeps naming: key maps are
    // append-only, so its names stay right.
    failed_published_at_ = *published_at;
    if (context_.ok()) return false;
    const bool changed = next.reason != context_.reason;
    context_ = std::move(next);
    return changed;
  }
  failed_published_at_ = kNoTimestamp;
  context_ = std::move(next);
  names_ = NamesOf(context_);
  return true;
}

}  // namespace vtctx::reader
