// `vtctx-reader verify`: a self-test users can run in production. At every CPU sample of the
// target (a cpu-clock perf event per CPU, as `profile`), the interrupted thread's context is read
// on both channels (verify.bpf.c) and compared: the carrier channel (its otel_thread_ctx_v1, which
// the agent's mount events repoint) and the identity channel (HotSpot's record of the mounted
// thread, followed into the agent's thread index). Expected: no sample where both name a context
// and they differ. A context on one channel only is expected in the JVM's own steps of a mount or
// an unmount (HotSpot records the mounted thread a few hundred nanoseconds before the agent's
// event repoints the carrier, and the reverse at an unmount), and for threads that never published
// through the shim (the index holds only those); both are counted, not failures.
#include "commands/verify.h"

#include <bpf/libbpf.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "commands/bpfRun.h"
#include "commands/bpfSupport.h"
#include "commands/commands.h"
#include "target/recordFormat.h"
#include "verify.skel.h"

namespace vtctx::reader {

const CommandHelp kVerifyHelp = {
    "usage: vtctx-reader verify --pid P [flags]\n"
    "e.g.  vtctx-reader verify --pid P -d 60\n"
    "\n"
    "Samples process P's CPU use (a cpu-clock perf event per CPU) and, at every sample, reads the\n"
    "interrupted thread's context on both channels: its " VTCTX_TLS_SYMBOL
    " (carrier) and HotSpot's\n"
    "record of the Java thread it runs followed into the agent's thread index (identity). Prints\n"
    "how often they agree; a sample where both name a context and the two differ is wrong data on\n"
    "one of them: each is printed, and the exit code is 9. P runs the vtctx agent with\n"
    "channel=carrier and thread_index=on, which fills the thread index too.\n"
    "\n",
    ""};

namespace {

constexpr int kMaxPrinted = 20;  // disagreements printed in full

class VerifyCommand final : public SkeletonCommand<verify_bpf, verify_bpf__destroy> {
 public:
  explicit VerifyCommand(const VerifyOptions& options) : options_(options) {}

  Wording wording() const override {
    return {"samples", "sample", "ring buffer full; raise --ringbuf-mb"};
  }

  absl::Status Open(const BpfTarget& target) override {
    if (absl::Status s = OpenCommon(verify_bpf__open, target, options_.run.bpf_floor,
                                    options_.run.ringbuf_mb << 20);
        !s.ok()) {
      return s;
    }
    return absl::OkStatus();
  }

  absl::Status Attach() override {
    return AttachCpuClocks(skel_->progs.vtctx_verify_sample, options_.hz, links_);
  }
  void Detach() override { links_.clear(); }
  int program_fd() const override { return bpf_program__fd(skel_->progs.vtctx_verify_sample); }
  uint64_t Dropped() const override { return Counter(VTCTX_VC_DROPPED); }

  void OnEvent(std::span<const uint8_t> record, TargetContext&) override {
    if (record.size() < sizeof(vtctx_verify_event)) return;
    const auto* e = reinterpret_cast<const vtctx_verify_event*>(record.data());
    if (printed_++ >= kMaxPrinted) return;
    std::string line =
        absl::StrFormat("DISAGREE tid=%d java_thread=%d carrier: ", e->tid, e->java_thread_id);
    AppendContextText(line, {e->carrier.status, e->carrier.record, e->carrier.header, {}}, nullptr);
    line += " identity: ";
    AppendContextText(line, {e->identity.status, e->identity.record, e->identity.header, {}},
                      nullptr);
    fprintf(stdout, "%s\n", line.c_str());
  }

  RunCounts Report(const RunEnd& end) override {
    const uint64_t samples = Counter(VTCTX_VC_SAMPLES);
    const uint64_t disagree = Counter(VTCTX_VC_DISAGREE);
    const struct {
      const char* what;
      uint64_t n;
    } rows[] = {
        {"same context on both channels", Counter(VTCTX_VC_BOTH_SAME)},
        {"no context on either channel", Counter(VTCTX_VC_BOTH_NONE)},
        {"a context on the carrier channel only", Counter(VTCTX_VC_CARRIER_ONLY)},
        {"a context on the identity channel only", Counter(VTCTX_VC_IDENTITY_ONLY)},
        {"different contexts (DISAGREE)", disagree},
        {"record changed hands during the read (not compared)", Counter(VTCTX_VC_CHANGED)},
    };
    std::string out = absl::StrFormat("verify: pid %d, %d samples in %.1f s\n", end.target.pid(),
                                      samples, end.seconds);
    for (const auto& row : rows) absl::StrAppendFormat(&out, "  %-54s %d\n", row.what, row.n);
    absl::StrAppend(&out, disagree == 0
                              ? "result: OK, the channels never named different contexts\n"
                              : "result: FAILED, the channels named different contexts\n");
    fputs(out.c_str(), stdout);
    RunCounts counts{samples, samples, Counter(VTCTX_VC_DROPPED), ""};
    counts.extra = absl::StrFormat(" disagreements=%d", disagree);
    if (disagree != 0) {
      counts.written = absl::DataLossError(absl::StrFormat(
          "the channels named different contexts at %d of %d samples", disagree, samples));
    }
    return counts;
  }

 private:
  uint64_t Counter(uint32_t which) const {
    return SumPerCpu(bpf_map__fd(skel_->maps.counters), which);
  }

  const VerifyOptions& options_;
  std::vector<BpfLink> links_;  // released before skel_
  int printed_ = 0;
};

}  // namespace

absl::Status RunVerify(const VerifyOptions& options) {
  VerifyOptions both = options;
  both.run.channel = ChannelChoice::kIdentity;  // the carrier slot is always read as well
  VerifyCommand command(both);
  return RunBpfCommand(command, both.run);
}

}  // namespace vtctx::reader
