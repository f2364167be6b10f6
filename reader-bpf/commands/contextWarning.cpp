#include "commands/contextWarning.h"

#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "target/agentStatusRead.h"
#include "target/procMaps.h"
#include "target/processContextReader.h"
#include "target/processMemory.h"
#include "target/writerChannel.h"
#include "vtctx/processContextHeader.h"

namespace vtctx::reader {
namespace {

constexpr uint64_t kFewFrom = 100;  // below 1 % of at least this many is "few"

// The likely cause, most specific first.
std::string Cause(const WriterFacts& f) {
  if (!f.vtctx) {
    return "no vtctx agent in the process (its OTEP 4947 writer, if any, published no context "
           "for that code): load the agent with --attach, or -agentpath at startup";
  }
  if (f.channel == "identity" && !f.followed_identity) {
    return "the agent runs channel=identity and this run followed the carrier channel, where a "
           "virtual thread reads as no context: drop --channel (auto follows the agent)";
  }
  if (!f.status) {
    return "this vtctx agent names no status block (an older version?): check the JVM's stderr "
           "for 'vtctx:' lines";
  }
  const vtctx_agent_status& s = *f.status;
  if (s.shims_served == 0 && s.shims_refused > 0) {
    return absl::StrFormat(
        "the agent refused %d cop%s of the shim in class loaders it does not serve (not the class "
        "path's, the module path's or the OpenTelemetry Java agent extension's; the JVM's stderr "
        "says so): install the shim there, or load the agent with shim_loaders=any",
        s.shims_refused, s.shims_refused == 1 ? "y" : "ies");
  }
  if (s.shims_served == 0) {
    return "the agent serves no shim: nothing in the JVM writes a context; add the shim "
           "(-Dotel.javaagent.extensions=vtctx-shim.jar with the OpenTelemetry Java agent, or on "
           "the class path) and restart the JVM";
  }
  if (s.publishing_threads == 0) {
    return absl::StrFormat(
        "the agent serves %d shim%s but no thread has published a context: no OpenTelemetry span "
        "was made current (is OpenTelemetry in the JVM, with the shim's storage installed? the "
        "JVM's stderr says when it is not), or no request ran",
        s.shims_served, s.shims_served == 1 ? "" : "s");
  }
  return absl::StrFormat(
      "%d thread%s published a context, but the CPU sampled ran outside their spans (JIT, GC, "
      "idle or startup threads): profile while requests run",
      s.publishing_threads, s.publishing_threads == 1 ? "" : "s");
}

}  // namespace

WriterFacts ReadWriterFacts(const TargetProcess& target, bool followed_identity) {
  WriterFacts facts;
  facts.followed_identity = followed_identity;
  absl::StatusOr<std::unique_ptr<ProcessMemory>> memory = target.Memory();
  absl::StatusOr<std::vector<Mapping>> maps = ReadMapsIn(target.dir());
  if (!memory.ok() || !maps.ok()) return facts;
  const ProcessContext context = ReadProcessContext(*maps, **memory);
  facts.vtctx = !ExtraString(context, VTCTX_PCTX_KEY_VTCTX_VERSION).empty();
  facts.channel = WriterChannelOf(context).channel;
  if (absl::StatusOr<vtctx_agent_status> status = ReadAgentStatus(context, **memory); status.ok()) {
    facts.status = *status;
  }
  return facts;
}

std::string ContextWarning(uint64_t with_context, uint64_t total, absl::string_view what,
                           const WriterFacts& facts) {
  const bool none = total > 0 && with_context == 0;
  const bool few = total >= kFewFrom && with_context * 100 < total;
  if (!none && !few) return "";
  return absl::StrCat("warning: ", with_context, " of ", total, " ", what,
                      " carried a trace context: ", Cause(facts));
}

}  // namespace vtctx::reader
