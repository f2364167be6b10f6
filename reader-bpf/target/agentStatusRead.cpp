#include "target/agentStatusRead.h"

#include <memory>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "target/untrustedText.h"
#include "vtctx/processContextHeader.h"

namespace vtctx::reader {

absl::StatusOr<uint64_t> NamedAddress(const ProcessContext& context, absl::string_view key,
                                      absl::string_view layout_key, int layout) {
  const std::string text = ExtraString(context, key);
  if (text.empty()) return absl::NotFoundError(absl::StrCat("no ", key, " in the context"));
  uint64_t address = 0;
  if (!absl::StartsWith(text, "0x") ||
      !absl::SimpleHexAtoi(absl::string_view(text).substr(2), &address) || address == 0) {
    return absl::FailedPreconditionError(absl::StrCat("the process context names no address for ",
                                                      key, " ('", Printable(text, 40), "')"));
  }
  const std::string version = ExtraString(context, layout_key);
  if (version != std::to_string(layout)) {
    return absl::FailedPreconditionError(absl::StrCat(key, " has layout '", Printable(version, 20),
                                                      "'; this reader reads layout ", layout));
  }
  return address;
}

absl::StatusOr<vtctx_agent_status> ReadAgentStatus(const ProcessContext& context,
                                                   MemoryReader& memory) {
  absl::StatusOr<uint64_t> address =
      NamedAddress(context, VTCTX_PCTX_KEY_VTCTX_STATUS, VTCTX_PCTX_KEY_VTCTX_STATUS_LAYOUT,
                   VTCTX_STATUS_LAYOUT);
  if (!address.ok()) return address.status();
  vtctx_agent_status status{};
  if (absl::Status read = memory.Read(*address, &status, sizeof status); !read.ok()) {
    return absl::DataLossError(
        absl::StrFormat("the agent's status block at 0x%x cannot be read", *address));
  }
  if (status.magic != VTCTX_STATUS_MAGIC || status.layout != VTCTX_STATUS_LAYOUT) {
    return absl::DataLossError(
        absl::StrFormat("no agent status block at 0x%x (magic or layout differ)", *address));
  }
  return status;
}

absl::StatusOr<vtctx_agent_status> ReadAgentStatusOf(const TargetProcess& target) {
  absl::StatusOr<std::unique_ptr<ProcessMemory>> memory = target.Memory();
  if (!memory.ok()) return memory.status();
  absl::StatusOr<std::vector<Mapping>> maps = ReadMapsIn(target.dir());
  if (!maps.ok()) return maps.status();
  return ReadAgentStatus(ReadProcessContext(*maps, **memory), **memory);
}

std::string DescribeAgentStatus(const vtctx_agent_status& status) {
  std::vector<const char*> origins;
  if (status.served_origins & VTCTX_SHIM_ORIGIN_SYSTEM) origins.push_back("class path");
  if (status.served_origins & VTCTX_SHIM_ORIGIN_OTEL_EXTENSION) {
    origins.push_back("OpenTelemetry Java agent extension");
  }
  if (status.served_origins & VTCTX_SHIM_ORIGIN_OTHER) origins.push_back("other class loaders");
  std::string out = absl::StrFormat("the agent serves %d shim%s", status.shims_served,
                                    status.shims_served == 1 ? "" : "s");
  if (!origins.empty()) absl::StrAppend(&out, " (", absl::StrJoin(origins, ", "), ")");
  absl::StrAppendFormat(&out, ", refused %d; %d thread%s published a context", status.shims_refused,
                        status.publishing_threads, status.publishing_threads == 1 ? "" : "s");
  if (status.shims_served == 0) {
    absl::StrAppend(&out,
                    " (a shim that has not run yet is served at its first use; none runs without "
                    "the shim jar: -Dotel.javaagent.extensions=vtctx-shim.jar or the class path)");
  }
  return out;
}

}  // namespace vtctx::reader
