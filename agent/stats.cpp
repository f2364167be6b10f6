#include "stats.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "agentState.h"
#include "eventHandlers.h"
#include "identityIndex.h"
#include "log.h"
#include "ownedFile.h"
#include "threadState.h"
#include "vtctx/version.h"
#include "writerWatch.h"

namespace vtctx {
namespace {

int g_stats_fd = -1;  // the stats= file, open from load to the one write at exit

}  // namespace

std::string StatsJson() {
  const CounterTotals t = SumCounters();
  const RecordPoolStats p = g_pool ? g_pool->Stats() : RecordPoolStats{};
  const AgentState& agent = Agent();
  // Records taken minus records put back, over every cache: exact at any quiescent moment.
  const uint64_t live =
      t.records_taken >= t.records_put_back ? t.records_taken - t.records_put_back : 0;
  const char* status = agent.status.load() == AgentStatus::kActive ? "active" : "inactive";
  std::string out = "{\n";
  auto add = [&](const char* key, uint64_t value) {
    char line[96];
    std::snprintf(line, sizeof line, "  \"%s\": %llu,\n", key,
                  static_cast<unsigned long long>(value));
    out += line;
  };
  out += "  \"version\": \"" VTCTX_VERSION "\",\n";
  out += std::string("  \"status\": \"") + status + "\",\n";
  out += std::string("  \"loaded\": \"") + (agent.attached_late ? "attach" : "startup") + "\",\n";
  out += std::string("  \"bind\": \"") + BindName(agent.options.bind) + "\",\n";
  add("activated_monotonic_ns", agent.activated_ns);
#define VTCTX_COUNTER_JSON(name, meaning) add(#name, t.name);
  VTCTX_EVENT_COUNTERS(VTCTX_COUNTER_JSON)
#undef VTCTX_COUNTER_JSON
  add("records_created", t.records_created_virtual + t.records_created_platform);
  add("records_live", live);
  add("records_peak", p.peak_outstanding);
  add("record_size", p.record_size);
  add("pool_slabs", p.slabs);
  add("pool_slab_bytes", p.slab_bytes);
  add("pool_bytes", p.slabs * p.slab_bytes);
  add("pool_exhausted", p.exhausted);
  add("pool_resident_bytes", g_pool ? g_pool->ResidentBytes() : 0);
  add("pool_trimmed_bytes", p.trimmed_bytes);
  const ThreadIndexStats index =
      AgentThreadIndex() ? AgentThreadIndex()->Stats() : ThreadIndexStats{};
  add("index_live", index.live);
  add("index_removed", index.removed);
  add("index_capacity", index.capacity);
  add("index_rebuilds", index.rebuilds);
  add("index_bytes", index.bytes);
  add("thread_states_resident_bytes", ThreadStatesResidentBytes());
  add("thread_states", t.thread_states);
  add("stateless_events", StatelessEvents());
  add("other_writers", OtherWritersFound());
  add("other_process_contexts", OtherProcessContextsFound());
  out.resize(out.size() - 2);  // drop the last ",\n"
  out += "\n}\n";
  return out;
}

std::string OpenStatsFile(const std::string& path) {
  const OwnedFile file = OpenOwnedFileForWriting(path, /*create=*/true);
  if (file.fd < 0) {
    return "option stats: cannot use '" + path + "': " + file.error +
           " (give the path of a regular file of your own)";
  }
  g_stats_fd = file.fd;
  return {};
}

void CloseStatsFile() {
  if (g_stats_fd >= 0) close(g_stats_fd);
  g_stats_fd = -1;
}

void WriteStatsFileOnce() {
  AgentState& agent = Agent();
  if (g_stats_fd < 0 || agent.stats_written.exchange(true)) return;
  const std::string json = StatsJson();
  if (ftruncate(g_stats_fd, 0) != 0 ||
      pwrite(g_stats_fd, json.data(), json.size(), 0) != static_cast<ssize_t>(json.size())) {
    LogError("cannot write the stats file %s: %s", agent.options.stats_path.c_str(),
             std::strerror(errno));
  }
  close(g_stats_fd);
  g_stats_fd = -1;
}

}  // namespace vtctx
