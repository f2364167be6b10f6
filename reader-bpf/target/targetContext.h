// The target's OTEP 4719 process context as the streaming commands (syscalls, profile) use it:
// read once at attach, re-read lazily when events carry key indexes it does not name
// (processContextWatch.h), and reported on stderr: its limitation (absent, unreadable,
// unsupported schema) once at attach and again only when it changes; with --verbose, every
// change of the key map.
#ifndef VTCTX_READER_TARGET_CONTEXT_H_
#define VTCTX_READER_TARGET_CONTEXT_H_

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "target/attributeNames.h"
#include "target/processContextWatch.h"
#include "target/processMemory.h"
#include "target/targetProcess.h"

namespace vtctx::reader {

class TargetContext {
 public:
  // Reads through the held process's directory only: never another process's context.
  TargetContext(const TargetProcess& target, bool verbose);

  const AttributeNames& names() const { return watch_ ? watch_->names() : none_; }

  // An event at `ts_ns` (CLOCK_MONOTONIC) with attrs-data `attrs`: re-reads if it needs names.
  void OnEvent(std::span<const uint8_t> attrs, uint64_t ts_ns) {
    if (watch_ && watch_->Refresh(attrs, ts_ns)) Report();
  }

  // " pctx_checks=N pctx_reads=M" for the summary line.
  std::string SummaryFields() const;

 private:
  void Report();

  pid_t pid_;
  bool verbose_;
  std::unique_ptr<ProcessMemory> memory_;
  std::unique_ptr<ProcessContextWatch> watch_;
  std::string last_note_;
  AttributeNames none_;
};

}  // namespace vtctx::reader

#endif  // VTCTX_READER_TARGET_CONTEXT_H_
