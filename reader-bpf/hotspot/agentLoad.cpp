#include "hotspot/agentLoad.h"

#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "hotspot/hotspotAttach.h"
#include "hotspot/javaThreadLayout.h"
#include "hotspot/jvmProcess.h"
#include "target/agentStatusRead.h"
#include "target/boundedFile.h"
#include "target/errnoStatus.h"
#include "target/monotonicClock.h"
#include "target/processContextReader.h"
#include "target/processMemory.h"
#include "target/tlsResolver.h"
#include "target/untrustedText.h"
#include "vtctx/loadReport.h"
#include "vtctx/processContextHeader.h"

namespace vtctx::reader {
namespace {

constexpr char kAgentName[] = "libvtctx.so";
constexpr size_t kMaxAgentBytes = 64 << 20;  // the agent is ~1.5 MB
constexpr size_t kMaxReportBytes = 4096;     // one line
constexpr size_t kMaxPathComponents = 64;
constexpr double kContextWaitSeconds = 2;  // for a vtctx being loaded right now

// The agent file the user gave, opened by the reader (its own file, not the target's).
struct HostAgent {
  std::string path;
  int fd = -1;
  dev_t dev = 0;
  ino_t ino = 0;
  size_t size = 0;
};

absl::StatusOr<HostAgent> OpenHostAgent(const std::string& given) {
  // Its canonical path: a symlink on the way would make the target's view of it unsafe to use.
  char resolved[PATH_MAX];
  const std::string path = realpath(given.c_str(), resolved) != nullptr ? resolved : given;
  HostAgent agent{path};
  agent.fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (agent.fd < 0) {
    return absl::NotFoundError(
        absl::StrCat("agent ", path, ": ", strerror(errno), " (give its path with --agent)"));
  }
  struct stat st {};
  if (fstat(agent.fd, &st) != 0 || !S_ISREG(st.st_mode) ||
      static_cast<size_t>(st.st_size) > kMaxAgentBytes) {
    close(agent.fd);
    return absl::InvalidArgumentError(absl::StrCat("agent ", path, " is ", FileKind(st.st_mode),
                                                   " of ", st.st_size, " bytes: give libvtctx.so"));
  }
  agent.dev = st.st_dev;
  agent.ino = st.st_ino;
  agent.size = static_cast<size_t>(st.st_size);
  return agent;
}

// True if a directory (or file) with `st` can be changed only by root or `uid`: owned by one of
// them and not writable by group or others, except a sticky directory (/tmp), whose entries only
// their owner, the directory's owner or root may rename or remove (the caller checks the entry).
bool OwnersOnly(const struct stat& st, uid_t uid) {
  return (st.st_uid == 0 || st.st_uid == uid) && (st.st_mode & (S_IWGRP | S_IWOTH)) == 0;
}
bool StickyOfOwners(const struct stat& st, uid_t uid) {
  return S_ISDIR(st.st_mode) && (st.st_mode & S_ISVTX) != 0 && (st.st_uid == 0 || st.st_uid == uid);
}

// In the view: true if `path` (absolute, no symlink anywhere) leads to a directory (`dev` 0) or
// to the file `dev`/`ino`, and nobody but root or `uid` can change any directory on the way or
// the file itself: what the JVM opens later by this path is what was checked.
bool OnlyOwnersCanChange(const std::string& path, uid_t uid, dev_t dev, ino_t ino) {
  if (path.empty() || path[0] != '/') return false;
  const std::vector<std::string> parts = absl::StrSplit(path, '/', absl::SkipEmpty());
  if (parts.size() > kMaxPathComponents) return false;
  int dir = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return false;
  struct stat parent {};
  bool ok = fstat(dir, &parent) == 0 && (OwnersOnly(parent, uid) || StickyOfOwners(parent, uid));
  struct stat st = parent;
  for (size_t i = 0; ok && i < parts.size(); ++i) {
    if (parts[i] == "." || parts[i] == "..") {
      ok = false;
      break;
    }
    const bool last = i + 1 == parts.size();
    const bool want_file = last && dev != 0;
    const int next = openat(dir, parts[i].c_str(),
                            O_PATH | O_NOFOLLOW | O_CLOEXEC | (want_file ? 0 : O_DIRECTORY));
    ok = next >= 0 && fstat(next, &st) == 0 && !S_ISLNK(st.st_mode);
    // The entry: changeable by its owners only, or a sticky directory of theirs (/tmp), whose
    // entries only their own owner, the directory's owner or root may rename or remove.
    ok = ok && (OwnersOnly(st, uid) || (!want_file && StickyOfOwners(st, uid)));
    ok = ok && (OwnersOnly(parent, uid) ||
                (StickyOfOwners(parent, uid) && (st.st_uid == 0 || st.st_uid == uid)));
    close(dir);
    dir = next;
    parent = st;
  }
  if (dir >= 0) close(dir);
  if (!ok) return false;
  if (dev == 0) return S_ISDIR(st.st_mode);
  // The file itself, and the JVM's user can read it.
  return S_ISREG(st.st_mode) && st.st_dev == dev && st.st_ino == ino &&
         access(path.c_str(), R_OK) == 0;
}

// In the view: a private copy of the agent, /tmp/vtctx-XXXXXX/libvtctx.so, made by the JVM's
// user: the directory 0700 and the file 0500, both created exclusively, in a /tmp that only its
// owners can change (sticky) so that nobody else can rename the directory away. Both are removed
// if the child is stopped before it keeps them.
absl::StatusOr<std::string> PlaceCopy(ViewSession& session, const HostAgent& agent,
                                      struct stat* copied) {
  // /tmp as the JVM resolves it (its own symlinks, in its own view), then checked to the root.
  char tmp[PATH_MAX];
  if (realpath("/tmp", tmp) == nullptr || !OnlyOwnersCanChange(tmp, session.uid(), 0, 0)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "pid ", session.target_pid(),
        "'s /tmp is not a directory that only root or its user can change (writable by others "
        "without the sticky bit, or below such a directory): no safe place for a copy of the "
        "agent; make the agent visible to the JVM (--agent PATH in a root-owned directory)"));
  }
  std::string dir_name = absl::StrCat(strcmp(tmp, "/") == 0 ? "" : tmp, "/vtctx-XXXXXX");
  char* dir = dir_name.data();
  if (mkdtemp(dir) == nullptr) {
    return ErrnoStatus(
        errno, absl::StrCat("creating a directory in pid ", session.target_pid(), "'s /tmp"));
  }
  session.RemoveUnlessKept(dir);
  const std::string path = absl::StrCat(dir, "/", kAgentName);
  absl::StatusOr<int> fd = OpenRegularFile(AT_FDCWD, path, O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (!fd.ok()) {
    rmdir(dir);
    return fd.status();
  }
  session.RemoveUnlessKept(path);
  char buffer[65536];
  absl::Status written = absl::OkStatus();
  for (size_t done = 0; done < agent.size && written.ok();) {
    const ssize_t n = pread(agent.fd, buffer, sizeof buffer, static_cast<off_t>(done));
    if (n <= 0) {
      written = ErrnoStatus(n < 0 ? errno : EIO, absl::StrCat("read ", agent.path));
      break;
    }
    for (ssize_t put = 0; put < n && written.ok();) {
      const ssize_t w = write(*fd, buffer + put, static_cast<size_t>(n - put));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) written = ErrnoStatus(w < 0 ? errno : EIO, absl::StrCat("write ", path));
      put += w > 0 ? w : 0;
    }
    done += static_cast<size_t>(n);
  }
  if (written.ok() && (fchmod(*fd, 0500) != 0 || fstat(*fd, copied) != 0)) {
    written = ErrnoStatus(errno, absl::StrCat("chmod ", path));
  }
  if (written.ok() &&
      (!S_ISREG(copied->st_mode) || copied->st_uid != session.uid() || copied->st_nlink != 1)) {
    written = absl::InternalError(absl::StrCat(path, " is not the file just created"));
  }
  close(*fd);
  if (!written.ok()) {
    unlink(path.c_str());
    rmdir(dir);
  }
  return written.ok() ? absl::StatusOr<std::string>(path) : written;
}

// Fields of the load child's answer, length-prefixed ("<bytes>:<text>") so that any byte fits.
void PutField(std::string& out, absl::string_view field) {
  absl::StrAppend(&out, field.size(), ":", field);
}
bool TakeField(absl::string_view& in, std::string& field) {
  const size_t colon = in.find(':');
  size_t size = 0;
  if (colon == absl::string_view::npos || !absl::SimpleAtoi(in.substr(0, colon), &size) ||
      size > in.size() - colon - 1) {
    return false;
  }
  field = std::string(in.substr(colon + 1, size));
  in.remove_prefix(colon + 1 + size);
  return true;
}

// What the load child reports back.
struct LoadAnswer {
  std::string reply;       // the JVM's raw answer
  std::string report;      // what the agent wrote to the report file ("" if nothing)
  std::string agent_path;  // the path handed to the JVM
  dev_t dev = 0;           // the file it leads to
  ino_t ino = 0;
};

// In the view: everything from the agent's path to the report (see the header).
absl::StatusOr<std::string> LoadInView(ViewSession& session, pid_t nspid, const HostAgent& agent,
                                       const std::string& agent_options, double timeout_s) {
  const double deadline = MonotonicSeconds() + timeout_s;
  std::string agent_path = agent.path;
  dev_t dev = agent.dev;
  ino_t ino = agent.ino;
  std::string copy;
  if (!OnlyOwnersCanChange(agent.path, session.uid(), agent.dev, agent.ino)) {
    struct stat copied {};
    absl::StatusOr<std::string> placed = PlaceCopy(session, agent, &copied);
    if (!placed.ok()) return placed.status();
    copy = agent_path = *placed;
    dev = copied.st_dev;
    ino = copied.st_ino;
  }
  auto drop_copy = [&] {
    if (copy.empty()) return;
    unlink(copy.c_str());
    rmdir(copy.substr(0, copy.rfind('/')).c_str());
  };
  // In /tmp as the JVM resolves it: the agent refuses a path with a symlink on the way.
  char tmp[PATH_MAX];
  std::string report_name =
      absl::StrCat(realpath("/tmp", tmp) != nullptr && strcmp(tmp, "/") != 0 ? tmp : "/tmp",
                   "/.vtctx-load-XXXXXX");
  char* report_path = report_name.data();
  const int report = mkostemp(report_path, O_CLOEXEC);
  if (report < 0) {
    const int err = errno;
    drop_copy();
    return ErrnoStatus(
        err, absl::StrCat("creating a report file in pid ", session.target_pid(), "'s /tmp"));
  }
  session.RemoveUnlessKept(report_path);
  const std::string options =
      absl::StrCat(agent_options, agent_options.empty() ? "" : ",", "report=", report_path);
  absl::StatusOr<std::string> request = AttachRequest("load", {agent_path, "true", options});
  absl::StatusOr<std::string> reply =
      request.ok() ? ExchangeInView(session, nspid, *request, deadline) : request.status();
  // The agent wrote the file by its path; this reads the file that was created here, whatever
  // the path leads to now.
  absl::StatusOr<std::string> written =
      ReadAllBounded(report, kMaxReportBytes, "the agent's report");
  close(report);
  unlink(report_path);
  session.Keep(report_path);
  const std::string line = written.ok() ? *written : "";
  if (!reply.ok() || !absl::StartsWith(line, "active ")) drop_copy();
  if (!copy.empty()) {
    session.Keep(copy);
    session.Keep(copy.substr(0, copy.rfind('/')));
  }
  if (!reply.ok()) return reply.status();
  std::string out;
  PutField(out, *reply);
  PutField(out, line);
  PutField(out, agent_path);
  PutField(out, absl::StrCat(dev));
  PutField(out, absl::StrCat(ino));
  return out;
}

absl::StatusOr<LoadAnswer> ParseLoadAnswer(absl::string_view in) {
  LoadAnswer a;
  std::string dev, ino;
  if (!TakeField(in, a.reply) || !TakeField(in, a.report) || !TakeField(in, a.agent_path) ||
      !TakeField(in, dev) || !TakeField(in, ino) || !absl::SimpleAtoi(dev, &a.dev) ||
      !absl::SimpleAtoi(ino, &a.ino)) {
    return absl::InternalError("malformed answer of the load helper");
  }
  return a;
}

// A thread-context writer already in the target: vtctx (its process context says so) gives its
// report; another writer is refused; none: nullopt.
absl::StatusOr<std::optional<AgentReport>> WriterAlreadyThere(const TargetProcess& target) {
  absl::StatusOr<std::unique_ptr<ProcessMemory>> memory = target.Memory();
  if (!memory.ok()) return ProcessAccessError(target.pid(), memory.status());
  absl::StatusOr<Resolution> resolution = ResolveProcess(target.pid(), **memory);
  if (!resolution.ok()) {
    if (absl::IsFailedPrecondition(resolution.status())) return std::nullopt;  // no writer
    if (absl::IsNotFound(resolution.status())) return resolution.status();
    // A module exports the symbol but cannot be followed: still a writer.
    return absl::UnimplementedError(absl::StrCat(
        "pid ", target.pid(), " has a thread-context writer vtctx-reader cannot follow (",
        Printable(resolution.status().message()), "): vtctx does not load beside it"));
  }
  // vtctx publishes its process context within milliseconds of its load: a writer found in that
  // instant is given a moment before it counts as another writer.
  ProcessContext context;
  std::string version;
  for (const double until = MonotonicSeconds() + kContextWaitSeconds;;) {
    absl::StatusOr<std::vector<Mapping>> maps = ReadMapsIn(target.dir());
    if (!maps.ok()) return maps.status();
    context = ReadProcessContext(*maps, **memory);
    version = context.ok() ? ExtraString(context, VTCTX_PCTX_KEY_VTCTX_VERSION) : "";
    if (!version.empty() || MonotonicSeconds() > until) break;
    poll(nullptr, 0, 20);
  }
  if (version.empty()) {
    return absl::UnimplementedError(absl::StrCat(
        "pid ", target.pid(), " already has an OTEP 4947 thread-context writer that is not vtctx (",
        Printable(resolution->modules.front().path),
        " defines otel_thread_ctx_v1): one writer per process, vtctx does not load beside it"));
  }
  AgentReport report;
  report.active = true;
  report.fields["vtctx"] = version;
  report.fields["load"] = "again";
  report.fields["loaded"] = ExtraString(context, VTCTX_PCTX_KEY_VTCTX_LOAD);
  report.text = ExtraString(context, VTCTX_PCTX_KEY_VTCTX_OPTIONS);
  return std::optional<AgentReport>(report);
}

// True if the target maps the file `dev`/`ino` (the agent the JVM was given).
bool MapsFile(const TargetProcess& target, dev_t dev, ino_t ino) {
  absl::StatusOr<std::vector<Mapping>> maps = ReadMapsIn(target.dir());
  if (!maps.ok()) return false;
  for (const Mapping& m : *maps) {
    if (m.inode == ino && m.dev_major == major(dev) && m.dev_minor == minor(dev)) return true;
  }
  return false;
}

// What the agent wrote, or the JVM's own words when it wrote nothing (it never ran).
absl::StatusOr<AgentReport> Outcome(const TargetProcess& target, const LoadAnswer& answer) {
  const pid_t pid = target.pid();
  absl::StatusOr<AttachReply> reply = ParseAttachReply(pid, answer.reply);
  if (!reply.ok()) return absl::AbortedError(reply.status().message());
  if (!answer.report.empty()) {
    absl::StatusOr<AgentReport> parsed =
        ParseAgentReport(absl::StripTrailingAsciiWhitespace(answer.report));
    if (!parsed.ok()) return absl::AbortedError(parsed.status().message());
    if (!parsed->active) {
      return absl::AbortedError(
          absl::StrCat("pid ", pid, ": the agent stays inactive: ", Printable(parsed->text)));
    }
    if (!MapsFile(target, answer.dev, answer.ino)) {
      return absl::AbortedError(absl::StrCat(
          "pid ", pid, " answered that the agent is active, but does not map ",
          Printable(answer.agent_path), ": the answer was not the agent's (not a HotSpot JVM?)"));
    }
    return parsed;
  }
  // The JVM ran the load and maps the agent, but the report is gone (replaced or unreadable: a
  // target's user can do that): the agent's process context says what it is.
  if (reply->code == 0 && MapsFile(target, answer.dev, answer.ino)) {
    absl::StatusOr<std::optional<AgentReport>> there = WriterAlreadyThere(target);
    if (there.ok() && *there) {
      (*there)->fields["load"] = "attached";
      return **there;
    }
  }
  return absl::AbortedError(absl::StrCat(
      "pid ", pid, " did not run the agent ", Printable(answer.agent_path), " (the JVM answered ",
      reply->code, ": ", Printable(absl::StripAsciiWhitespace(reply->output)), ")"));
}

}  // namespace

absl::StatusOr<AgentReport> ParseAgentReport(absl::string_view line) {
  protocol::LoadReport decoded;
  std::string error;
  if (!protocol::DecodeLoadReport(std::string_view(line.data(), line.size()), &decoded, &error)) {
    return absl::InvalidArgumentError(absl::StrCat(error, ": '", Printable(line, 200), "'"));
  }
  AgentReport out;
  out.active = decoded.active;
  for (auto& [key, value] : decoded.fields) out.fields[key] = std::move(value);
  out.text = std::move(decoded.text);
  return out;
}

std::string DescribeAgentReport(const AgentReport& r) {
  auto field = [&](const char* key) {
    auto it = r.fields.find(key);
    return it == r.fields.end() || it->second.empty() ? std::string("?")
                                                      : Printable(it->second, 64);
  };
  if (!r.active) return absl::StrCat("vtctx ", field("vtctx"), " inactive: ", Printable(r.text));
  const std::string load = field("load");
  if (load == "again") {
    return absl::StrCat("vtctx ", field("vtctx"), " active (already active; loaded ",
                        field("loaded") == "startup" ? "at startup" : "by an attach", "; options '",
                        Printable(r.text), "')");
  }
  const std::string how = load == "attached" ? "attached now" : "loaded at " + load;
  if (r.fields.count("java") == 0) {  // from the process context: the report was lost
    return absl::StrCat("vtctx ", field("vtctx"), " active (", how, "; options '",
                        Printable(r.text), "')");
  }
  return absl::StrCat("vtctx ", field("vtctx"), " active (", how, "; Java ", field("java"), "; ",
                      field("record_size"), "-byte records, ", field("records"),
                      " handed out; bind=", field("bind"), "; options '", Printable(r.text), "')");
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
  absl::StatusOr<std::optional<AgentReport>> there = WriterAlreadyThere(target);
  if (!there.ok()) return there.status();
  if (*there) return **there;
  const std::string host = options.agent_path.empty() ? DefaultAgentPath() : options.agent_path;
  if (host.empty()) {
    return absl::NotFoundError(
        "no libvtctx.so beside vtctx-reader (../lib/ or ../agent/): give it with --agent");
  }
  absl::StatusOr<HostAgent> agent = OpenHostAgent(host);
  if (!agent.ok()) return agent.status();
  absl::StatusOr<AgentReport> outcome = [&]() -> absl::StatusOr<AgentReport> {
    absl::StatusOr<HotSpotAttach> attach = HotSpotAttach::Open(target, *jvm, options.timeout_s);
    if (!attach.ok()) return attach.status();
    const double load_timeout_s = 3 * options.timeout_s;
    const pid_t nspid = attach->nspid();
    absl::StatusOr<std::string> answer = attach->view().Run(
        "loading the agent", load_timeout_s + 2, kMaxAttachReplyBytes + 2 * kMaxReportBytes,
        [&](ViewSession& session) {
          return LoadInView(session, nspid, *agent, options.agent_options, load_timeout_s);
        });
    if (!answer.ok()) return answer.status();
    absl::StatusOr<LoadAnswer> parsed = ParseLoadAnswer(*answer);
    if (!parsed.ok()) return parsed.status();
    if (parsed->agent_path != agent->path) {
      fprintf(stderr, "vtctx-reader: pid %d does not see %s safely: loaded a private copy at %s\n",
              target.pid(), Printable(agent->path).c_str(), Printable(parsed->agent_path).c_str());
    }
    return Outcome(target, *parsed);
  }();
  close(agent->fd);
  // Whatever went wrong past the checks is a failed attach (exit 8), never a usage error or a
  // missing symbol: those codes mean other things to the user.
  if (!outcome.ok() && !absl::IsNotFound(outcome.status()) &&
      !absl::IsPermissionDenied(outcome.status()) && !absl::IsUnimplemented(outcome.status()) &&
      !absl::IsDeadlineExceeded(outcome.status()) && !absl::IsAborted(outcome.status())) {
    return absl::AbortedError(outcome.status().message());
  }
  return outcome;
}

// The options of an --attach that chooses its channel: channel=identity where this reader can
// follow it in `target`, else carrier (said on stderr either way).
AgentLoadOptions WithChosenChannel(const TargetProcess& target, AgentLoadOptions options) {
  absl::StatusOr<std::unique_ptr<ProcessMemory>> memory = target.Memory();
  const absl::Status followable =
      memory.ok() ? CheckIdentityFollowable(target, **memory) : memory.status();
  if (followable.ok()) {
    options.agent_options +=
        options.agent_options.empty() ? "channel=identity" : ",channel=identity";
    return options;
  }
  fprintf(stderr,
          "vtctx-reader: pid %d: loading the carrier channel (it costs every virtual-thread mount "
          "for the JVM's life): %s\n",
          target.pid(), Printable(followable.message()).c_str());
  return options;
}

absl::Status AttachBeforeRun(const TargetProcess& target,
                             const std::optional<AgentLoadOptions>& requested) {
  if (!requested) return absl::OkStatus();
  const AgentLoadOptions options =
      requested->choose_channel ? WithChosenChannel(target, *requested) : *requested;
  absl::StatusOr<AgentReport> report = LoadAgent(target, options);
  if (!report.ok()) return report.status();
  fprintf(stderr, "vtctx-reader: pid %d: %s\n", target.pid(), DescribeAgentReport(*report).c_str());
  if (absl::StatusOr<vtctx_agent_status> status = ReadAgentStatusOf(target); status.ok()) {
    fprintf(stderr, "vtctx-reader: pid %d: %s\n", target.pid(),
            DescribeAgentStatus(*status).c_str());
  }
  return absl::OkStatus();
}

}  // namespace vtctx::reader
