#include "commands/sampleRecord.h"

#include <algorithm>
#include <cstring>

namespace vtctx::reader {
namespace {

// `bytes` (as bpf_get_stack returned it: bytes written, or -errno) of addresses at `stack`.
std::vector<uint64_t> Addresses(const uint8_t* stack, int32_t bytes) {
  const size_t n = bytes > 0 ? static_cast<size_t>(bytes) / sizeof(uint64_t) : 0;
  std::vector<uint64_t> out(std::min<size_t>(n, VTCTX_MAX_STACK_DEPTH));
  if (!out.empty()) std::memcpy(out.data(), stack, out.size() * sizeof(uint64_t));
  return out;
}

}  // namespace

std::optional<SampleRecord> ParseSampleRecord(std::span<const uint8_t> record) {
  SampleRecord out;
  if (record.size() < sizeof(vtctx_sample_event)) return std::nullopt;
  out.event = reinterpret_cast<const vtctx_sample_event*>(record.data());
  const vtctx_sample_event& e = *out.event;
  // The stacks region ends the record (the reservation's size, which the ring buffer keeps); the
  // attrs region, if any, lies between the event and it.
  if (e.stacks_size != 0 && e.stacks_size != VTCTX_STACKS_SIZE &&
      e.stacks_size != VTCTX_STACKS_COPY_SIZE) {
    return std::nullopt;
  }
  if (record.size() < sizeof e + e.stacks_size) return std::nullopt;
  const size_t attrs_region = record.size() - sizeof e - e.stacks_size;
  if (e.ctx.attrs_len > attrs_region) return std::nullopt;
  out.attrs = record.subspan(sizeof e, e.ctx.attrs_len);
  if (e.stacks_size == 0) return out;
  const uint8_t* stacks = record.data() + sizeof e + attrs_region;
  out.stacks.user = Addresses(stacks, e.user_stack);
  out.stacks.kernel = Addresses(stacks + VTCTX_STACK_BYTES, e.kernel_stack);
  out.stacks.user_error = e.user_stack < 0 ? e.user_stack : 0;
  out.stacks.depth_limited = out.stacks.user.size() == VTCTX_MAX_STACK_DEPTH ||
                             out.stacks.kernel.size() == VTCTX_MAX_STACK_DEPTH;
  if (e.stacks_size == VTCTX_STACKS_COPY_SIZE) {
    if (e.copy_bytes > VTCTX_USER_COPY_BYTES) return std::nullopt;
    out.user_registers = FrameState{e.user_ip, e.user_sp, e.user_bp};
    out.user_copy = {e.copy_base,
                     std::span<const uint8_t>(stacks + VTCTX_STACKS_SIZE, e.copy_bytes),
                     e.copy_bytes == VTCTX_USER_COPY_BYTES};
  }
  return out;
}

}  // namespace vtctx::reader
