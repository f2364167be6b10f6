// Reading another process's OTEP 4719 process context (docs/process-context.md, "What readers
// must do"; the same rules as the OpenTelemetry eBPF profiler's reader):
//
// 1. Find the mapping in /proc/<pid>/maps by name: `/memfd:OTEL_CTX`, `/memfd:OTEL_CTX (deleted)`,
//    `[anon_shmem:OTEL_CTX]` or `[anon:OTEL_CTX]`; readable, never executable, at least one
//    header long. Exactly one such mapping: several make the context ambiguous (invalid).
// 2. Read published_at_ns; 0 means an update is in progress: retry.
// 3. Read the 32-byte header: signature "OTEL_CTX", version 2, payload size 1..65536.
// 4. Read payload_size bytes at the header's payload address.
// 5. Read published_at_ns again: if it changed, the payload may be torn: retry from 2.
// 6. Decode the payload (processContextPayload.h).
// Retries are bounded (kMaxSnapshotAttempts, yielding the CPU between them): a writer that
// updates continuously makes the read fail rather than hang.
#ifndef VTCTX_READER_PROCESS_CONTEXT_READER_H_
#define VTCTX_READER_PROCESS_CONTEXT_READER_H_

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "target/attributeNames.h"
#include "target/procMaps.h"
#include "target/processContextPayload.h"
#include "target/processMemory.h"
#include "vtctx/processContextHeader.h"

namespace vtctx::reader {

inline constexpr int kMaxSnapshotAttempts = 16;

// The mappings of `maps` that qualify as a process context mapping (step 1, without the count).
std::vector<Mapping> FindContextMappings(const std::vector<Mapping>& maps);

// One consistent read of the header and payload (steps 2-5).
struct ContextSnapshot {
  vtctx_pctx_header header{};  // header.published_at_ns is the (stable) timestamp
  std::vector<uint8_t> payload;
};
// InvalidArgument for a bad header (signature, version, size), DataLoss if the payload cannot be
// read, Unavailable if every attempt met an update, the memory reader's error if the header
// cannot be read.
absl::StatusOr<ContextSnapshot> ReadContextSnapshot(MemoryReader& memory, uint64_t header_address);

// published_at_ns alone (one 8-byte read): the cheap "did it change?" check.
absl::StatusOr<uint64_t> ReadPublishedAt(MemoryReader& memory, uint64_t header_address);

// A process context as read, or why there is none.
struct ProcessContext {
  enum class Status { kAbsent, kInvalid, kOk };
  Status status = Status::kAbsent;
  std::string reason;  // kAbsent / kInvalid: one line
  // Where it was found (kInvalid may have a mapping, kOk always has).
  uint64_t address = 0;
  std::string mapping_name;
  // kOk only:
  vtctx_pctx_header header{};
  ProcessContextPayload payload;
  ThreadContextKeys thread;

  bool ok() const { return status == Status::kOk; }
  // Whether key indexes can be named: the context is ok, the schema version is the supported one
  // and the key map (if any) is well-formed.
  bool NamesAttributes() const {
    return ok() && thread.schema_supported && thread.key_map_error.empty();
  }
};

// Steps 1-6 on a parsed maps list.
ProcessContext ReadProcessContext(const std::vector<Mapping>& maps, MemoryReader& memory);
// The same, reading /proc/<pid>/maps first.
ProcessContext ReadProcessContext(pid_t pid, MemoryReader& memory);
// Steps 2-6 at a known header address.
ProcessContext ReadProcessContextAt(uint64_t header_address, std::string mapping_name,
                                    MemoryReader& memory);

// An extra attribute of the context (ProcessContext field 2), as text: "" when the context is not
// ok, or has no such attribute, or not as a string.
std::string ExtraString(const ProcessContext& context, absl::string_view key);

// The names the context gives to key indexes (none unless NamesAttributes()).
AttributeNames NamesOf(const ProcessContext& context);

// One line for stderr when attributes cannot be named (absent, invalid, unsupported schema, bad
// key map), "" when they can. It says what readers still get (ids, attributes by index).
std::string DescribeLimitation(const ProcessContext& context, pid_t pid);

// "status" and the decoded fields as a JSON object:
//   {"status":"ok","mapping":"<name>","address":"0x..","published_at_ns":N,"payload_size":N,
//    "resource":{...},"schema_version":"..","schema_supported":true,
//    "attribute_key_map":[...],"extra_attributes":{...}}
// with "attribute_key_map_error" when the map is unusable, "extra_attributes" only for keys
// other than the two thread-context ones; {"status":"absent"|"invalid","reason":".."} otherwise.
std::string ProcessContextJson(const ProcessContext& context);
// The same for people, several lines, each ending in '\n'.
std::string ProcessContextText(const ProcessContext& context);

}  // namespace vtctx::reader

#endif  // VTCTX_READER_PROCESS_CONTEXT_READER_H_
