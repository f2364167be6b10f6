#include "hotspot/jitCodeNames.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "target/boundedFile.h"
#include "target/untrustedText.h"

namespace vtctx::reader {
namespace {

// 256 MiB: a million JIT blobs with long names.
constexpr size_t kMaxPerfMapBytes = 256u << 20;

// The ranges of `table` that overlap [start, start + size) (size 0: one byte).
template <typename Visit>
void ForOverlapping(const SymbolTable& table, uint64_t start, uint64_t size, Visit visit) {
  const uint64_t end = start + std::max<uint64_t>(size, 1);
  const std::vector<SymbolRange>& r = table.ranges();
  // Ranges starting before `end`; perf-map blobs never nest, so walking back from there finds
  // every overlap and stops at the first range that ends before `start`.
  auto it = std::lower_bound(r.begin(), r.end(), end,
                             [](const SymbolRange& x, uint64_t a) { return x.start < a; });
  while (it != r.begin()) {
    --it;
    if (it->start + std::max<uint64_t>(it->size, 1) <= start) break;
    visit(*it);
  }
}

std::string FrameName(const std::string& perf_map_name) {
  return perf_map_name == "Interpreter" ? kInterpreted : perf_map_name;
}

}  // namespace

SymbolTable MergePerfMaps(const SymbolTable& start, const SymbolTable& end) {
  SymbolTable merged;
  for (const SymbolRange& e : end.ranges()) {
    bool replaced = false;
    ForOverlapping(start, e.start, e.size,
                   [&](const SymbolRange& s) { replaced = replaced || s.name != e.name; });
    merged.Add(e.start, e.size, replaced ? kUnknownJit : FrameName(e.name));
  }
  for (const SymbolRange& s : start.ranges()) {
    bool overlapped = false;
    ForOverlapping(end, s.start, s.size, [&](const SymbolRange&) { overlapped = true; });
    if (!overlapped) merged.Add(s.start, s.size, FrameName(s.name));
  }
  merged.Finish();
  return merged;
}

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
    names.reset(new JitCodeNames(*std::move(jvm), *std::move(attach), timeout_s));
    absl::StatusOr<SymbolTable> first = names->Snapshot();
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

absl::StatusOr<SymbolTable> JitCodeNames::Snapshot() {
  absl::StatusOr<AttachReply> reply =
      attach_.Execute("jcmd", {"Compiler.perfmap", "", ""}, timeout_s_);
  if (!reply.ok()) return reply.status();
  if (reply->code != 0 || absl::StrContains(reply->output, "Unknown diagnostic command")) {
    return absl::UnimplementedError(
        absl::StrCat("Compiler.perfmap failed (JDK 17+ has it): ", Printable(reply->output, 200)));
  }
  // The file the JVM just wrote, read in its view as its user (never through /proc/<pid>/root:
  // a symlink there would resolve in the reader's root).
  const std::string path = absl::StrCat("/tmp/perf-", jvm_.status.nspid, ".map");
  absl::StatusOr<std::string> text = attach_.view().Run(
      "reading the JVM's perf map", timeout_s_, kMaxPerfMapBytes, [&](ViewSession&) {
        absl::StatusOr<std::string> map = ReadRegularFile(AT_FDCWD, path, kMaxPerfMapBytes);
        unlink(path.c_str());  // written because the reader asked: nothing is left behind
        return map;
      });
  if (!text.ok()) return text.status();
  return ParsePerfMap(*text);
}

void JitCodeNames::Finish() {
  absl::StatusOr<SymbolTable> last = Snapshot();
  if (!last.ok()) {
    fprintf(stderr,
            "vtctx-reader: warning: no second perf map (%s): JIT frames named from the first "
            "one only\n",
            std::string(last.status().message()).c_str());
    merged_ = MergePerfMaps(SymbolTable(), start_);
    return;
  }
  merged_ = MergePerfMaps(start_, *last);
}

}  // namespace vtctx::reader
