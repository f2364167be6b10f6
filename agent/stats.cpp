#include "stats.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>

#include "agentState.h"
#include "log.h"
#include "threadState.h"

namespace vtctx {

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
  out += std::string("  \"status\": \"") + status + "\",\n";
  out += std::string("  \"loaded\": \"") + (agent.attached_late ? "attach" : "startup") + "\",\n";
  out += std::string("  \"bind\": \"") + BindName(agent.options.bind) + "\",\n";
  add("mounts", t.mounts);
  add("unmounts", t.unmounts);
  add("unpaired_mounts", t.unpaired_mounts);
  add("unpaired_unmounts", t.unpaired_unmounts);
  add("vthread_ends", t.vthread_ends);
  add("ends_without_record", t.unpaired_ends);
  add("records_created", t.vthread_records + t.platform_records);
  add("records_created_virtual", t.vthread_records);
  add("records_created_platform", t.platform_records);
  add("records_lazily_created", t.lazy_records);
  add("records_returned", t.records_returned);
  add("records_live", live);
  add("records_peak", p.peak_outstanding);
  add("records_unavailable", t.no_record);
  add("record_size", p.record_size);
  add("pool_slabs", p.slabs);
  add("pool_slab_bytes", p.slab_bytes);
  add("pool_bytes", p.slabs * p.slab_bytes);
  add("pool_exhausted", p.exhausted);
  add("pool_resident_bytes", g_pool ? g_pool->ResidentBytes() : 0);
  add("pool_trimmed_bytes", p.trimmed_bytes);
  add("thread_states_resident_bytes", ThreadStatesResidentBytes());
  add("thread_states", t.thread_states);
  add("stateless_events", StatelessEvents());
  out.resize(out.size() - 2);  // drop the last ",\n"
  out += "\n}\n";
  return out;
}

void WriteStatsFileOnce() {
  AgentState& agent = Agent();
  if (agent.options.stats_path.empty() || agent.stats_written.exchange(true)) return;
  const std::string json = StatsJson();
  const int fd =
      open(agent.options.stats_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0 || write(fd, json.data(), json.size()) != static_cast<ssize_t>(json.size())) {
    LogError("cannot write stats file %s; check the stats= path is writable",
             agent.options.stats_path.c_str());
  }
  if (fd >= 0) close(fd);
}

}  // namespace vtctx
