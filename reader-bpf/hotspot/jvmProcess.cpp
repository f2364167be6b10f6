#include "hotspot/jvmProcess.h"

#include <signal.h>

#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "target/boundedFile.h"
#include "target/processMemory.h"
#include "target/untrustedText.h"

namespace vtctx::reader {
namespace {

constexpr size_t kMaxStatusBytes = 64 << 10;  // /proc/<pid>/status is ~1.5 KiB

constexpr absl::string_view kInspectedFlags[] = {kDisableAttachMechanism, kPreserveFramePointer};

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

}  // namespace

std::optional<bool> JvmProcess::Flag(const std::string& name) const {
  if (!facts) return std::nullopt;
  auto it = facts->flags.find(name);
  if (it == facts->flags.end()) return std::nullopt;
  return it->second;
}

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
  absl::StatusOr<std::string> status_text =
      ReadKernelFile(target.dir() + "/status", kMaxStatusBytes);
  if (!status_text.ok()) {
    return absl::NotFoundError(absl::StrCat("no such process: ", target.pid()));
  }
  absl::StatusOr<ProcStatus> status = ParseProcStatus(*status_text);
  if (!status.ok()) return status.status();
  jvm.status = *status;
  absl::StatusOr<std::vector<Mapping>> maps = ReadMapsIn(target.dir());
  if (!maps.ok()) return maps.status();
  jvm.maps = *std::move(maps);
  for (const Mapping& m : jvm.maps) {
    if (absl::EndsWith(m.path, "/libjvm.so")) jvm.hotspot = true;
    if (absl::StrContains(m.path, "/libj9vm")) jvm.openj9 = true;
  }
  jvm.hotspot = jvm.hotspot && !jvm.openj9;
  if (!jvm.hotspot) return jvm;
  absl::StatusOr<std::unique_ptr<ProcessMemory>> memory = target.Memory();
  if (!memory.ok()) return memory.status();
  absl::StatusOr<VmStructs> vm = OpenVmStructs(target.dir(), jvm.maps, **memory);
  absl::StatusOr<JvmFacts> facts =
      vm.ok() ? ReadJvmFacts(**memory, *vm, kInspectedFlags) : vm.status();
  if (facts.ok()) {
    jvm.facts = *std::move(facts);
  } else {
    jvm.facts_error = Printable(facts.status().message());
  }
  return jvm;
}

absl::Status CheckAttachable(const JvmProcess& jvm) {
  if (!jvm.hotspot) {
    return absl::UnimplementedError(absl::StrCat(
        "pid ", jvm.pid, " is not a HotSpot JVM (",
        jvm.openj9 ? "OpenJ9, whose attach mechanism is another" : "no libjvm.so mapped",
        "): vtctx attaches to HotSpot JDK 21 or newer"));
  }
  if (jvm.facts && jvm.facts->major != 0 && jvm.facts->major < 21) {
    return absl::UnimplementedError(
        absl::StrCat("pid ", jvm.pid, " runs Java ", Printable(jvm.java_version(), 64),
                     ": vtctx needs JDK 21 or newer (virtual threads); run the service on 21+"));
  }
  if (jvm.Flag(std::string(kDisableAttachMechanism)).value_or(false)) {
    return absl::UnimplementedError(absl::StrCat(
        "pid ", jvm.pid,
        " runs with -XX:+DisableAttachMechanism and takes no attach: restart it without that "
        "flag, or load the agent at startup (-agentpath:/path/to/libvtctx.so)"));
  }
  return absl::OkStatus();
}

}  // namespace vtctx::reader
