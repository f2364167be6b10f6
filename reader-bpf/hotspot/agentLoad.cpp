#include "hotspot/agentLoad.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "hotspot/hotspotAttach.h"
#include "hotspot/jvmProcess.h"
#include "target/errnoStatus.h"
#include "target/processMemory.h"
#include "target/tlsResolver.h"

namespace vtctx::reader {
namespace {

constexpr char kAgentName[] = "libvtctx.so";

absl::StatusOr<std::string> ReadWhole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return ErrnoStatus(errno, absl::StrCat("read ", path));
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// FNV-1a, 64 bits: names a copy of the agent by its content.
uint64_t ContentHash(const std::string& bytes) {
  uint64_t h = 0xcbf29ce484222325u;
  for (unsigned char c : bytes) h = (h ^ c) * 0x100000001b3u;
  return h;
}

// True if `path` opens, for the target's user and in its mount namespace, the file `host`.
bool SameFileInTarget(const JvmProcess& jvm, const std::string& path, const struct stat& host) {
  TargetCredentials as_target(jvm.status);
  const int fd = open((jvm.root + path).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat there {};
  const bool same =
      fstat(fd, &there) == 0 && there.st_dev == host.st_dev && there.st_ino == host.st_ino;
  close(fd);
  return same;
}

// Writes `bytes` to `path` (via a temporary name) unless it already holds them.
absl::Status WriteCopy(const std::string& path, const std::string& bytes) {
  if (absl::StatusOr<std::string> old = ReadWhole(path); old.ok() && *old == bytes) {
    return absl::OkStatus();
  }
  std::string temp = path + ".XXXXXX";
  const int fd = mkstemp(temp.data());
  if (fd < 0) return ErrnoStatus(errno, absl::StrCat("create ", temp));
  const bool written = write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size());
  const bool ok = written && fchmod(fd, 0644) == 0 && close(fd) == 0;
  if (!ok || rename(temp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    unlink(temp.c_str());
    return ErrnoStatus(err, absl::StrCat("write ", path));
  }
  return absl::OkStatus();
}

// The agent's path as the target sees it: `host_path` itself when it leads to the same file in
// the target's mount namespace and the target's user can read it, else a copy in the target's
// /tmp named by its content (made as the target's user; reused when present).
absl::StatusOr<std::string> VisibleAgentPath(const JvmProcess& jvm, const std::string& host_path) {
  struct stat host {};
  if (stat(host_path.c_str(), &host) != 0) {
    return absl::NotFoundError(
        absl::StrCat("agent ", host_path, ": ", strerror(errno), " (give its path with --agent)"));
  }
  if (SameFileInTarget(jvm, host_path, host)) return host_path;
  absl::StatusOr<std::string> bytes = ReadWhole(host_path);
  if (!bytes.ok()) return bytes.status();
  const std::string inside =
      absl::StrFormat("/tmp/vtctx-%016x-%s", ContentHash(*bytes), kAgentName);
  TargetCredentials as_target(jvm.status);
  if (absl::Status s = WriteCopy(jvm.root + inside, *bytes); !s.ok()) {
    return absl::Status(
        s.code(), absl::StrCat("placing the agent in pid ", jvm.pid, "'s /tmp: ", s.message()));
  }
  fprintf(stderr, "vtctx-reader: pid %d does not see %s: loading a copy at %s (its /tmp)\n",
          jvm.pid, host_path.c_str(), inside.c_str());
  return inside;
}

// The report file, created empty in the target's /tmp as its user: {path here, path there}.
absl::StatusOr<std::pair<std::string, std::string>> CreateReportFile(const JvmProcess& jvm) {
  TargetCredentials as_target(jvm.status);
  std::string here = jvm.root + "/tmp/.vtctx-load-XXXXXX";
  const int fd = mkstemp(here.data());
  if (fd < 0)
    return ErrnoStatus(errno, absl::StrCat("creating a report file in pid ", jvm.pid, "'s /tmp"));
  close(fd);
  return std::make_pair(here, here.substr(jvm.root.size()));
}

// The file that already defines the thread-context symbol in the target, as the target names it
// ("" when none does).
std::string LoadedWriterPath(const TargetProcess& target) {
  absl::StatusOr<std::unique_ptr<ProcessMemory>> memory = ProcessMemory::Open(target.pid());
  if (!memory.ok()) return "";
  absl::StatusOr<Resolution> resolution = ResolveProcess(target.pid(), **memory);
  return resolution.ok() ? resolution->modules.front().path : "";
}

// What the agent wrote, or the JVM's own words when it wrote nothing (it never ran).
absl::StatusOr<AgentReport> Outcome(pid_t pid, const std::string& agent, const std::string& report,
                                    const AttachReply& reply) {
  absl::StatusOr<std::string> line = ReadWhole(report);
  if (line.ok() && !line->empty()) {
    absl::StatusOr<AgentReport> parsed =
        ParseAgentReport(absl::StripTrailingAsciiWhitespace(*line));
    if (!parsed.ok()) return parsed.status();
    if (!parsed->active) {
      return absl::AbortedError(
          absl::StrCat("pid ", pid, ": the agent stays inactive: ", parsed->text));
    }
    return parsed;
  }
  std::string words = reply.output;
  for (char& c : words) c = c == '\n' ? ' ' : c;
  return absl::AbortedError(absl::StrCat("pid ", pid, " did not run the agent ", agent,
                                         " (the JVM answered ", reply.code, ": ",
                                         absl::StripAsciiWhitespace(words), ")"));
}

}  // namespace

absl::StatusOr<AgentReport> ParseAgentReport(absl::string_view line) {
  AgentReport out;
  absl::string_view rest = line;
  if (absl::ConsumePrefix(&rest, "active ")) {
    out.active = true;
  } else if (!absl::ConsumePrefix(&rest, "inactive ")) {
    return absl::InvalidArgumentError(absl::StrCat("not an agent report: '", line, "'"));
  }
  const absl::string_view last = out.active ? "options=" : "reason=";
  while (!rest.empty()) {
    if (absl::ConsumePrefix(&rest, last)) {
      out.text = std::string(rest);
      return out;
    }
    const size_t space = rest.find(' ');
    const absl::string_view word = rest.substr(0, space);
    const size_t eq = word.find('=');
    if (eq == absl::string_view::npos) break;
    out.fields[std::string(word.substr(0, eq))] = std::string(word.substr(eq + 1));
    rest = space == absl::string_view::npos ? "" : rest.substr(space + 1);
  }
  return absl::InvalidArgumentError(absl::StrCat("agent report without ", last, ": '", line, "'"));
}

std::string DescribeAgentReport(const AgentReport& r) {
  auto field = [&](const char* key) {
    auto it = r.fields.find(key);
    return it == r.fields.end() ? std::string("?") : it->second;
  };
  if (!r.active) return absl::StrCat("vtctx ", field("vtctx"), " inactive: ", r.text);
  const std::string load = field("load");
  const std::string how = load == "again"      ? "already active"
                          : load == "attached" ? "attached now"
                                               : "loaded at " + load;
  return absl::StrCat("vtctx ", field("vtctx"), " active (", how, "; Java ", field("java"), "; ",
                      field("record_size"), "-byte records, ", field("records"),
                      " handed out; bind=", field("bind"), "; options '", r.text, "')");
}

std::string AgentBesideReader(const std::string& exe) {
  const std::string dir = exe.substr(0, exe.rfind('/'));
  for (const char* relative : {"/../lib/", "/../agent/"}) {
    char resolved[PATH_MAX];
    const std::string candidate = absl::StrCat(dir, relative, kAgentName);
    if (realpath(candidate.c_str(), resolved) != nullptr && access(resolved, R_OK) == 0) {
      return resolved;
    }
  }
  return "";
}

std::string DefaultAgentPath() {
  char exe[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return "";
  return AgentBesideReader(std::string(exe, static_cast<size_t>(n)));
}

absl::StatusOr<AgentReport> LoadAgent(const TargetProcess& target,
                                      const AgentLoadOptions& options) {
  if (absl::StrContains(absl::StrCat(",", options.agent_options), ",report=")) {
    return absl::InvalidArgumentError("--options must not set report= (the attach sets it)");
  }
  absl::StatusOr<JvmProcess> jvm = InspectJvm(target);
  if (!jvm.ok()) return ProcessAccessError(target.pid(), jvm.status());
  if (absl::Status s = CheckAttachable(*jvm); !s.ok()) return s;
  // Loaded already: the same file again, so that the agent itself says what state it is in.
  std::string agent = LoadedWriterPath(target);
  if (agent.empty()) {
    const std::string host = options.agent_path.empty() ? DefaultAgentPath() : options.agent_path;
    if (host.empty()) {
      return absl::NotFoundError(
          "no libvtctx.so beside vtctx-reader (../lib/ or ../agent/): give it with --agent");
    }
    absl::StatusOr<std::string> visible = VisibleAgentPath(*jvm, host);
    if (!visible.ok()) return visible.status();
    agent = *visible;
  }
  absl::StatusOr<HotSpotAttach> attach = HotSpotAttach::Open(target, *jvm, options.timeout_s);
  if (!attach.ok()) return attach.status();
  absl::StatusOr<std::pair<std::string, std::string>> report = CreateReportFile(*jvm);
  if (!report.ok()) return report.status();
  const std::string agent_options = absl::StrCat(
      options.agent_options, options.agent_options.empty() ? "" : ",", "report=", report->second);
  absl::StatusOr<AttachReply> reply =
      attach->Execute("load", {agent, "true", agent_options}, 3 * options.timeout_s);
  absl::StatusOr<AgentReport> outcome =
      reply.ok() ? Outcome(target.pid(), agent, report->first, *reply) : reply.status();
  unlink(report->first.c_str());
  return outcome;
}

absl::Status AttachBeforeRun(const TargetProcess& target,
                             const std::optional<AgentLoadOptions>& options) {
  if (!options) return absl::OkStatus();
  absl::StatusOr<AgentReport> report = LoadAgent(target, *options);
  if (!report.ok()) return report.status();
  fprintf(stderr, "vtctx-reader: pid %d: %s\n", target.pid(), DescribeAgentReport(*report).c_str());
  return absl::OkStatus();
}

}  // namespace vtctx::reader
