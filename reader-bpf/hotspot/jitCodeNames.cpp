#include "hotspot/jitCodeNames.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "target/boundedFile.h"
#include "target/untrustedText.h"

namespace vtctx::reader {

std::unique_ptr<JitCodeNames> JitCodeNames::ForTarget(const TargetProcess& target,
                                                      double timeout_s) {
  absl::StatusOr<JvmProcess> jvm = InspectJvm(target);
  if (!jvm.ok() || !jvm->hotspot) return nullptr;
  absl::Status usable = CheckAttachable(*jvm);
  absl::StatusOr<HotSpotAttach> attach = absl::UnknownError("");
  if (usable.ok()) {
    attach = HotSpotAttach::Open(target, *jvm, timeout_s);
    usable = attach.status();
  }
  std::unique_ptr<JitCodeNames> names;
  if (usable.ok()) {
    names.reset(new JitCodeNames(*std::move(jvm), *std::move(attach)));
    absl::StatusOr<SymbolTable> first = names->Snapshot(timeout_s);
    if (first.ok()) {
      names->start_ = *std::move(first);
    } else {
      usable = first.status();
      names.reset();
    }
  }
  if (!usable.ok()) {
    fprintf(stderr, "vtctx-reader: warning: JIT-compiled Java frames stay unnamed (%s): %s\n",
            kUnknownJit, std::string(usable.message()).c_str());
    return nullptr;
  }
  names->preserve_frame_pointer_ = names->jvm_.Flag(std::string(kPreserveFramePointer));
  return names;
}

absl::StatusOr<SymbolTable> JitCodeNames::Snapshot(double timeout_s) {
  absl::StatusOr<AttachReply> reply =
      attach_.Execute("jcmd", {"Compiler.perfmap", "", ""}, timeout_s);
  if (!reply.ok()) return reply.status();
  if (reply->code != 0 || absl::StrContains(reply->output, "Unknown diagnostic command")) {
    return absl::UnimplementedError(
        absl::StrCat("Compiler.perfmap failed (JDK 17+ has it): ", Printable(reply->output, 200)));
  }
  // The file the JVM just wrote, read in its view as its user (never through /proc/<pid>/root:
  // a symlink there would resolve in the reader's root).
  const std::string path = absl::StrCat("/tmp/perf-", jvm_.status.nspid, ".map");
  absl::StatusOr<std::string> text = attach_.view().Run(
      "reading the JVM's perf map", timeout_s, kMaxPerfMapBytes, [&](ViewSession&) {
        absl::StatusOr<std::string> map = ReadRegularFile(AT_FDCWD, path, kMaxPerfMapBytes);
        unlink(path.c_str());  // written because the reader asked: nothing is left behind
        return map;
      });
  if (!text.ok()) return text.status();
  SymbolTable table = ParsePerfMap(*text);
  if (table.dropped() > 0) {
    fprintf(stderr,
            "vtctx-reader: warning: the JVM's perf map holds more than %zu code blobs: %zu left "
            "out (their frames read %s)\n",
            kMaxPerfMapEntries, table.dropped(), kUnknownJit);
  }
  return table;
}

void JitCodeNames::Finish() {
  // Sampling is over: the second map must not hold the result up for long (a JVM that does not
  // answer gets the names of the first).
  absl::StatusOr<SymbolTable> last = Snapshot(kEndSnapshotTimeoutS);
  if (!last.ok()) {
    fprintf(stderr,
            "vtctx-reader: warning: no second perf map (%s): JIT frames named from the first "
            "one only\n",
            std::string(last.status().message()).c_str());
    merged_ = MergePerfMaps(SymbolTable(), start_);
  } else {
    merged_ = MergePerfMaps(start_, *last);
  }
  start_ = SymbolTable();  // only the merged names are used from now on
}

}  // namespace vtctx::reader
