// The outcome of a load as one line in a file (option report=PATH), for an attacher that cannot
// see the JVM's stderr: `vtctx-reader attach` creates the file, passes its path and reads it after
// the attach returned. Written once per load, before Agent_OnAttach/Agent_OnLoad returns (HotSpot
// unloads the library right after a failed attach). The line's grammar is the protocol's
// (protocol/include/vtctx/loadReport.h, docs/protocol.md "Load report"); `load=again`: the agent
// was already active and this load changed nothing (its options are ignored; `options=` shows
// those in force).
#ifndef VTCTX_AGENT_LOAD_REPORT_H_
#define VTCTX_AGENT_LOAD_REPORT_H_

#include <cstddef>
#include <string>

namespace vtctx {

struct ActiveReport {
  const char* load;  // "startup", "attached", "again"
  std::string java_version;
  size_t record_size = 0;
  unsigned long long records = 0;
  const char* bind = "mount";
  std::string options;
};

std::string ActiveReportLine(const ActiveReport& report);
// `options` without its report= item (the file of one load is no option in force).
std::string WithoutReport(const char* options);
std::string InactiveReportLine(const std::string& reason);

// Writes `line` and a newline to `path`, an existing regular file of the JVM's user (the attacher
// creates it; ownedFile.h), truncated first. Returns "" or why it could not (the caller logs it:
// the load itself does not depend on the report).
std::string WriteLoadReport(const std::string& path, const std::string& line);

}  // namespace vtctx

#endif  // VTCTX_AGENT_LOAD_REPORT_H_
