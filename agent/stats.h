// Agent counters as one JSON object: written to the stats=<file> option at VM death and returned
// live to Java (io.vtctx.internal.AgentNatives.statsJson()).
#ifndef VTCTX_AGENT_STATS_H_
#define VTCTX_AGENT_STATS_H_

#include <cstdint>
#include <string>

namespace vtctx {

// One key per line, e.g. {"records_live": 12, ...}: easy for jq, Python and grep alike.
std::string StatsJson();

// Writes StatsJson() to the stats option's file, at most once per process. Safe to call from
// VMDeath and Agent_OnUnload.
void WriteStatsFileOnce();

// Events that ran on a thread without agent state (see eventHandlers.cpp).
uint64_t StatelessEvents();

}  // namespace vtctx

#endif  // VTCTX_AGENT_STATS_H_
