#include "hotspot/jvmProcess.h"

#include <signal.h>

#include <fstream>
#include <sstream>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "target/errnoStatus.h"
#include "target/procMaps.h"

namespace vtctx::reader {
namespace {

// The words after "Name:" on the line of `field`, or none.
std::vector<absl::string_view> FieldWords(absl::string_view text, absl::string_view field) {
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (absl::ConsumePrefix(&line, field) && absl::ConsumePrefix(&line, ":")) {
      return absl::StrSplit(line, absl::ByAnyChar(" \t"), absl::SkipEmpty());
    }
  }
  return {};
}

bool HasSigquit(absl::string_view text, absl::string_view field) {
  const std::vector<absl::string_view> words = FieldWords(text, field);
  uint64_t mask = 0;
  return words.size() == 1 && absl::SimpleHexAtoi(words[0], &mask) &&
         (mask & (uint64_t{1} << (SIGQUIT - 1))) != 0;
}

absl::StatusOr<std::string> ReadText(const std::string& path) {
  std::ifstream in(path);
  if (!in) return ErrnoStatus(errno, absl::StrCat("read ", path));
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// HotSpot's perf-data file of the target, found among its mappings (the JVM maps it), read in
// the target's mount namespace.
std::optional<HsPerfData> ReadPerfData(const std::vector<Mapping>& maps, const std::string& root,
                                       pid_t nspid) {
  const std::string suffix = absl::StrCat("/", nspid);
  for (const Mapping& m : maps) {
    if (!absl::StrContains(m.path, "/hsperfdata_") || !absl::EndsWith(m.path, suffix)) continue;
    absl::StatusOr<std::string> text = ReadText(root + m.path);
    if (!text.ok()) return std::nullopt;
    absl::StatusOr<HsPerfData> perf =
        ParseHsPerfData({reinterpret_cast<const uint8_t*>(text->data()), text->size()});
    if (perf.ok()) return *std::move(perf);
    return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

absl::StatusOr<ProcStatus> ParseProcStatus(absl::string_view text) {
  ProcStatus out;
  std::vector<absl::string_view> nspid = FieldWords(text, "NSpid");
  if (nspid.empty()) nspid = FieldWords(text, "Tgid");  // kernels before 4.1
  const std::vector<absl::string_view> uid = FieldWords(text, "Uid");
  const std::vector<absl::string_view> gid = FieldWords(text, "Gid");
  // Uid/Gid: real, effective, saved, filesystem.
  if (nspid.empty() || uid.size() < 2 || gid.size() < 2 ||
      !absl::SimpleAtoi(nspid.back(), &out.nspid) || !absl::SimpleAtoi(uid[1], &out.euid) ||
      !absl::SimpleAtoi(gid[1], &out.egid)) {
    return absl::InvalidArgumentError("unexpected /proc/<pid>/status format");
  }
  out.catches_sigquit = HasSigquit(text, "SigCgt");
  out.ignores_sigquit = HasSigquit(text, "SigIgn");
  return out;
}

absl::StatusOr<JvmProcess> InspectJvm(const TargetProcess& target) {
  JvmProcess jvm;
  jvm.pid = target.pid();
  jvm.root = target.dir() + "/root";
  absl::StatusOr<std::string> status_text = ReadText(target.dir() + "/status");
  if (!status_text.ok()) {
    return absl::NotFoundError(absl::StrCat("no such process: ", target.pid()));
  }
  absl::StatusOr<ProcStatus> status = ParseProcStatus(*status_text);
  if (!status.ok()) return status.status();
  jvm.status = *status;
  absl::StatusOr<std::vector<Mapping>> maps = ReadMapsIn(target.dir());
  if (!maps.ok()) return maps.status();
  for (const Mapping& m : *maps) {
    if (absl::EndsWith(m.path, "/libjvm.so")) jvm.hotspot = true;
    if (absl::StrContains(m.path, "/libj9vm")) jvm.openj9 = true;
  }
  jvm.hotspot = jvm.hotspot && !jvm.openj9;
  jvm.perf = ReadPerfData(*maps, jvm.root, jvm.status.nspid);
  if (jvm.perf) jvm.java_version = jvm.perf->strings["java.property.java.version"];
  return jvm;
}

absl::Status CheckAttachable(const JvmProcess& jvm) {
  if (!jvm.hotspot) {
    return absl::UnimplementedError(absl::StrCat(
        "pid ", jvm.pid, " is not a HotSpot JVM (",
        jvm.openj9 ? "OpenJ9, whose attach mechanism is another" : "no libjvm.so mapped",
        "): vtctx attaches to HotSpot JDK 21 or newer"));
  }
  if (const int major = JavaMajorVersion(jvm.java_version); major != 0 && major < 21) {
    return absl::UnimplementedError(
        absl::StrCat("pid ", jvm.pid, " runs Java ", jvm.java_version,
                     ": vtctx needs JDK 21 or newer (virtual threads); run the service on 21+"));
  }
  if (jvm.perf) {
    const auto caps = jvm.perf->strings.find("sun.rt.jvmCapabilities");
    if (caps != jvm.perf->strings.end() && !caps->second.empty() && caps->second[0] == '0') {
      return absl::UnimplementedError(absl::StrCat(
          "pid ", jvm.pid,
          " runs with -XX:+DisableAttachMechanism and takes no attach: restart it without that "
          "flag, or load the agent at startup (-agentpath:/path/to/libvtctx.so)"));
    }
  }
  return absl::OkStatus();
}

}  // namespace vtctx::reader
