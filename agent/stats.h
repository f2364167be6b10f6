// Agent counters as one JSON object: written to the stats=<file> option at VM death and returned
// live to Java (io.vtctx.internal.AgentNatives.statsJson()).
#ifndef VTCTX_AGENT_STATS_H_
#define VTCTX_AGENT_STATS_H_

#include <cstdint>
#include <string>

namespace vtctx {

// One key per line, e.g. {"records_live": 12, ...}: easy for jq, Python and grep alike.
std::string StatsJson();

// Opens (creating it if missing) the stats=<path> file at load, so that a path that cannot take
// the report is refused then, with the reason, and never blocks the JVM's exit: ownedFile.h's
// rules (no symlink on the way, a regular file of the JVM's user). Returns "" or one line.
std::string OpenStatsFile(const std::string& path);

// Closes the file OpenStatsFile opened (a load that fails after opening it).
void CloseStatsFile();

// Writes StatsJson() into the file OpenStatsFile opened, at most once per process. Safe to call
// from VMDeath and Agent_OnUnload.
void WriteStatsFileOnce();

}  // namespace vtctx

#endif  // VTCTX_AGENT_STATS_H_
