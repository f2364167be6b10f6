#include "target/targetContext.h"

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "target/processContextReader.h"

namespace vtctx::reader {

TargetContext::TargetContext(const TargetProcess& target, bool verbose)
    : pid_(target.pid()), verbose_(verbose) {
  const pid_t pid = pid_;
  absl::StatusOr<std::unique_ptr<ProcessMemory>> memory = target.Memory();
  if (!memory.ok()) {
    last_note_ =
        absl::StrCat("pid ", pid, ": process context unreadable (", memory.status().message(),
                     "): trace and span ids are read; attributes are shown by key index "
                     "(#N)");
    fprintf(stderr, "vtctx-reader: %s\n", last_note_.c_str());
    return;
  }
  memory_ = *std::move(memory);
  watch_ = ProcessContextWatch::ForProcess(target.dir(), *memory_);
  Report();
}

void TargetContext::Report() {
  const ProcessContext& c = watch_->context();
  const std::string note = DescribeLimitation(c, pid_);
  if (note != last_note_) {
    if (!note.empty()) {
      fprintf(stderr, "vtctx-reader: %s\n", note.c_str());
    } else if (!last_note_.empty()) {
      fprintf(stderr, "vtctx-reader: pid %d: process context now names attributes\n", pid_);
    }
    last_note_ = note;
  }
  if (verbose_ && c.ok()) {
    fprintf(stderr, "vtctx-reader: process context published_at_ns %llu, attribute keys [%s]\n",
            static_cast<unsigned long long>(c.header.published_at_ns),
            absl::StrJoin(c.thread.key_map, ", ").c_str());
  }
}

std::string TargetContext::SummaryFields() const {
  if (!watch_) return "";
  return absl::StrCat(" pctx_checks=", watch_->checks(), " pctx_reads=", watch_->rereads());
}

}  // namespace vtctx::reader
