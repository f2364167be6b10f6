// One run of a BPF command, the same for every one (libbpf-tools' main):
//
//   stop handlers, BPF access, libbpf logging -> hold the target (targetProcess.h) -> [--attach:
//   load the agent (agentLoad.h)] -> resolve
//   it, waiting for the agent with --wait (agentWait.h) -> open the skeleton, set its rodata and
//   map sizes -> [kernel run-time statistics] -> load -> attach -> read the process context ->
//   'vtctx-reader: attached' -> consume until a stop condition -> detach -> drain -> the
//   command's result on stdout -> the summary line on stderr.
//
// Stop conditions, checked after each bounded read (EventBatch): stdout closed by its reader, a
// stop signal (SIGINT, SIGTERM, SIGHUP, SIGPIPE), the target's exit, --duration. One cleanup
// path: what the run creates is released in reverse order when it returns; the command (its
// skeleton and links) belongs to the caller and outlives the run.
//
// A BPF command is a BpfCommand (its skeleton, and what it makes of events) plus its options
// (commandOptions.h); syscalls.cpp and profile.cpp are the examples.
#ifndef VTCTX_READER_BPF_RUN_H_
#define VTCTX_READER_BPF_RUN_H_

#include <bpf/libbpf.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "commands/bpfSupport.h"
#include "commands/commandOptions.h"
#include "target/identitySlot.h"
#include "target/targetContext.h"
#include "target/targetProcess.h"
#include "target/tlsSlot.h"

namespace vtctx::reader {

// The held and resolved target, for a command's rodata.
struct BpfTarget {
  const TargetProcess& process;
  vtctx_slot_recipe recipe;
  vtctx_identity_recipe identity;  // kind VTCTX_IDENTITY_NONE: the carrier channel
};

// Sets the rodata every program declares (targetFilter.bpf.h, identityRead.bpf.h,
// ringbufNotify.bpf.h, floor_only) for a ring buffer of `ring_bytes`.
template <typename Rodata>
void SetCommonRodata(Rodata& rodata, const BpfTarget& target, bool floor_only,
                     uint32_t ring_bytes) {
  rodata.target_tgid = static_cast<__u32>(target.process.pid());
  rodata.target_held_ns = target.process.held_ns();
  rodata.vtctx_recipe = target.recipe;
  rodata.vtctx_identity = target.identity;
  rodata.floor_only = floor_only;
  rodata.wakeup_bytes = ring_bytes / 4;
}

// A command's skeleton, destroyed with it (`Destroy`: the skeleton's <name>_bpf__destroy).
template <typename Skeleton, void (*Destroy)(Skeleton*)>
struct SkeletonDestroyer {
  void operator()(Skeleton* skeleton) const { Destroy(skeleton); }
};
template <typename Skeleton, void (*Destroy)(Skeleton*)>
using SkeletonPtr = std::unique_ptr<Skeleton, SkeletonDestroyer<Skeleton, Destroy>>;

// Opens a skeleton (`open`: its <name>_bpf__open), sets the common rodata and sizes its ring
// buffer `events` to `ring_bytes`; the command then sets its own rodata, before the run loads it.
template <typename Skeleton, void (*Destroy)(Skeleton*)>
absl::StatusOr<SkeletonPtr<Skeleton, Destroy>> OpenSkeleton(Skeleton* (*open)(),
                                                            const BpfTarget& target,
                                                            bool floor_only, uint32_t ring_bytes) {
  SkeletonPtr<Skeleton, Destroy> skeleton(open());
  if (!skeleton) return absl::InternalError(absl::StrCat("opening BPF object: ", strerror(errno)));
  SetCommonRodata(*skeleton->rodata, target, floor_only, ring_bytes);
  if (int err = bpf_map__set_max_entries(skeleton->maps.events, ring_bytes); err != 0) {
    return absl::InternalError(absl::StrCat("sizing the ring buffer: ", strerror(-err)));
  }
  return skeleton;
}

// A command's part of the summary line.
struct RunCounts {
  uint64_t delivered = 0;  // events printed, samples counted
  uint64_t matched = 0;    // passed the BPF filter: delivered, dropped (or undelivered)
  uint64_t dropped = 0;
  std::string extra;          // the command's own fields, e.g. " stacks_lost=3"
  uint64_t with_context = 0;  // of the delivered, those whose context had a trace-id and span-id
  absl::Status written = absl::OkStatus();  // writing the command's output file, if any
};

// How a run went, for a command's report.
struct RunEnd {
  double seconds;  // from attach to the end of the drain
  const TargetProcess& target;
  const TargetContext& context;
  // The target ran another program (exec): nothing may be read of it any more (its files and
  // memory are the new program's).
  bool execed = false;
};

// A BPF command as the run drives it. Methods are called in the order of the lifecycle above;
// any that fails ends the run with its status.
class BpfCommand {
 public:
  // How the summary and the warnings name what the command counts, and why it drops.
  struct Wording {
    absl::string_view events;      // "events": the summary's first field
    absl::string_view event;       // "event": bpf_ns_per_<event>_max
    absl::string_view drop_cause;  // "ring buffer full; ..."
  };

  virtual ~BpfCommand() = default;
  virtual Wording wording() const = 0;

  // Opens the skeleton and sets its rodata (SetCommonRodata and its own) and map sizes.
  virtual absl::Status Open(const BpfTarget& target) = 0;
  // The opened skeleton, which the run loads.
  virtual bpf_object_skeleton* skeleton() = 0;
  virtual absl::Status Attach() = 0;
  // With --verbose, one line on how it attached; "" for none.
  virtual std::string AttachDetail() const { return ""; }
  // Stops the programs: the counters are final afterwards.
  virtual void Detach() = 0;

  // Watches for the target's exec (targetFilter.bpf.h), after Attach().
  virtual absl::Status AttachExecWatch() = 0;
  // True once the programs saw the target's exec.
  virtual bool TargetExeced() const = 0;

  virtual int events_fd() const = 0;   // the ring buffer map
  virtual int program_fd() const = 0;  // the program whose run-time statistics are reported
  virtual uint64_t Dropped() const = 0;

  // One ring-buffer record, whole (BPF reserves whole events).
  virtual void OnEvent(std::span<const uint8_t> record, TargetContext& context) = 0;
  // After the drain: prints the command's result on stdout; returns its counts.
  virtual RunCounts Report(const RunEnd& end) = 0;
};

// Runs `command` against `options.pid`. OK after any stop condition; otherwise the status main
// turns into a one-line reason and an exit code.
absl::Status RunBpfCommand(BpfCommand& command, const BpfRunOptions& options);

// A BpfCommand over one libbpf skeleton whose ring buffer map is `events`: it owns the skeleton
// (skel_) and answers skeleton() and events_fd(); its Open() calls OpenCommon, then sets its own
// rodata.
template <typename Skeleton, void (*Destroy)(Skeleton*)>
class SkeletonCommand : public BpfCommand {
 public:
  bpf_object_skeleton* skeleton() override { return skel_->skeleton; }
  int events_fd() const override { return bpf_map__fd(skel_->maps.events); }

  absl::Status AttachExecWatch() override {
    exec_link_.reset(bpf_program__attach(skel_->progs.vtctx_target_exec));
    if (!exec_link_) {
      return absl::InternalError(
          absl::StrCat("attaching to sched_process_exec: ", strerror(errno)));
    }
    return absl::OkStatus();
  }
  bool TargetExeced() const override {
    return *static_cast<volatile const bool*>(&skel_->bss->vtctx_target_execed);
  }

 protected:
  absl::Status OpenCommon(Skeleton* (*open)(), const BpfTarget& target, bool floor_only,
                          uint32_t ring_bytes) {
    auto skel = OpenSkeleton<Skeleton, Destroy>(open, target, floor_only, ring_bytes);
    if (!skel.ok()) return skel.status();
    skel_ = *std::move(skel);
    // Attached by AttachExecWatch, whatever the command's Attach does.
    bpf_program__set_autoattach(skel_->progs.vtctx_target_exec, false);
    return absl::OkStatus();
  }

  SkeletonPtr<Skeleton, Destroy> skel_;
  BpfLink exec_link_;  // released before skel_
};

}  // namespace vtctx::reader

#endif  // VTCTX_READER_BPF_RUN_H_
