// Per-sample stacks of `profile` (profile.bpf.c puts each sample's stacks in its own ring-buffer
// event): the record parser, the aggregation by stack, and the folded and pprof stacks it gives,
// with the markers of stacks that are not whole. Records are built here byte for byte as the BPF
// program lays them out (profile.h).
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "commands/profileReport.h"
#include "commands/sampleRecord.h"

namespace vtctx::reader {
namespace {

// A record as profile.bpf.c reserves it: event, [attrs region], [stacks region].
std::vector<uint8_t> Record(uint32_t tid, const std::vector<uint64_t>& user,
                            const std::vector<uint64_t>& kernel, int32_t user_error = 0,
                            const std::string& attrs = "", bool with_stacks = true) {
  vtctx_sample_event e{};
  e.tid = tid;
  e.tgid = 7;
  e.ctx.status = VTCTX_CTX_OK;
  e.ctx.header.valid = VTCTX_RECORD_VALID;
  e.ctx.header.trace_id[15] = 0xab;
  e.ctx.header.span_id[7] = 0xcd;
  e.ctx.attrs_len = static_cast<uint16_t>(attrs.size());
  e.stacks_size = with_stacks ? VTCTX_STACKS_SIZE : 0;
  e.user_stack = user_error != 0 ? user_error : static_cast<int32_t>(user.size() * 8);
  e.kernel_stack = static_cast<int32_t>(kernel.size() * 8);
  const size_t attrs_region = attrs.empty() ? 0 : VTCTX_ATTRS_MAX_SIZE;
  std::vector<uint8_t> out(sizeof e + attrs_region + e.stacks_size, 0xee);  // unwritten: junk
  std::memcpy(out.data(), &e, sizeof e);
  if (!attrs.empty()) std::memcpy(out.data() + sizeof e, attrs.data(), attrs.size());
  if (with_stacks) {
    uint8_t* stacks = out.data() + sizeof e + attrs_region;
    if (!user.empty()) std::memcpy(stacks, user.data(), user.size() * 8);
    if (!kernel.empty()) std::memcpy(stacks + VTCTX_STACK_BYTES, kernel.data(), kernel.size() * 8);
  }
  return out;
}

// Names every address by its value: user "u<hex>", kernel "k<hex>_[k]"; with `inlining`, an
// inlined "i<hex>" frame inside every user frame too.
class HexNamer final : public FrameNamer {
 public:
  Frame UserFrame(uint64_t address, bool return_address) override {
    return {absl::StrCat("u", absl::Hex(address), return_address ? "" : "!"), "/bin/app", address};
  }
  std::vector<Frame> UserFrames(uint64_t address, bool return_address,
                                const InterpretedSlots& /*interpreted*/) override {
    if (!inlining) return {UserFrame(address, return_address)};
    return {{absl::StrCat("i", absl::Hex(address)), "/bin/app", address, /*inlined=*/true},
            UserFrame(address, return_address)};
  }
  bool inlining = false;
  Frame KernelFrame(uint64_t address) override {
    return {absl::StrCat("k", absl::Hex(address), "_[k]"), "[kernel.kallsyms]", address};
  }
};

TEST(SampleRecord, SplitsEventAttrsAndStacks) {
  // attrs-data: key 1, length 3, "foo".
  const std::vector<uint8_t> bytes = Record(42, {0x10, 0x20, 0x30}, {0xf1}, 0,
                                            "\x01\x03"
                                            "foo");
  const auto sample = ParseSampleRecord(bytes);
  ASSERT_TRUE(sample.has_value());
  EXPECT_EQ(sample->event->tid, 42u);
  EXPECT_EQ(std::string(sample->attrs.begin(), sample->attrs.end()),
            "\x01\x03"
            "foo");
  EXPECT_EQ(sample->stacks.user, (std::vector<uint64_t>{0x10, 0x20, 0x30}));
  EXPECT_EQ(sample->stacks.kernel, (std::vector<uint64_t>{0xf1}));
  EXPECT_FALSE(sample->stacks.depth_limited);
  EXPECT_EQ(sample->stacks.user_error, 0);

  const auto plain = ParseSampleRecord(Record(1, {}, {}, 0, "", /*with_stacks=*/false));
  ASSERT_TRUE(plain.has_value());
  EXPECT_TRUE(plain->stacks.user.empty() && plain->attrs.empty());
}

TEST(SampleRecord, MarksFullDepthAndFailedWalks) {
  const std::vector<uint64_t> full(VTCTX_MAX_STACK_DEPTH, 0x99);
  EXPECT_TRUE(ParseSampleRecord(Record(1, full, {}))->stacks.depth_limited);
  EXPECT_TRUE(ParseSampleRecord(Record(1, {0x1}, full))->stacks.depth_limited);
  const std::vector<uint64_t> one_less(VTCTX_MAX_STACK_DEPTH - 1, 0x99);
  EXPECT_FALSE(ParseSampleRecord(Record(1, one_less, one_less))->stacks.depth_limited);
  const auto failed = ParseSampleRecord(Record(1, {}, {0xf1}, -14));
  EXPECT_EQ(failed->stacks.user_error, -14);
  EXPECT_TRUE(failed->stacks.user.empty());
}

TEST(SampleRecord, RefusesRecordsShorterThanTheirFields) {
  std::vector<uint8_t> bytes = Record(1, {0x10}, {});
  EXPECT_FALSE(ParseSampleRecord(std::span(bytes).first(sizeof(vtctx_sample_event) - 1)));
  EXPECT_FALSE(ParseSampleRecord(std::span(bytes).first(bytes.size() - 1)));
  // attrs_len beyond the attrs region.
  std::vector<uint8_t> no_region = Record(1, {0x10}, {});
  reinterpret_cast<vtctx_sample_event*>(no_region.data())->ctx.attrs_len = 5;
  EXPECT_FALSE(ParseSampleRecord(no_region));
  // A stacks size the program never writes.
  reinterpret_cast<vtctx_sample_event*>(bytes.data())->stacks_size = 8;
  EXPECT_FALSE(ParseSampleRecord(bytes));
  // More bytes than the buffer holds are never read.
  std::vector<uint8_t> lying = Record(1, {0x10}, {});
  reinterpret_cast<vtctx_sample_event*>(lying.data())->user_stack = 1 << 20;
  EXPECT_EQ(ParseSampleRecord(lying)->stacks.user.size(), size_t{VTCTX_MAX_STACK_DEPTH});
}

// The old design kept 16 384 stacks in a hash map and lost samples to collisions: here 20 000
// distinct stacks, each sample's own, all come out with their counts.
TEST(ProfileStacks, EveryDistinctStackKeepsItsSamples) {
  SampleAggregate aggregate;
  uint64_t expected_total = 0;
  for (uint64_t i = 0; i < 20000; ++i) {
    const std::vector<uint8_t> bytes = Record(1, {0x1000 + i, 0x500, 0x400}, {});
    const uint64_t n = i % 3 + 1;
    for (uint64_t k = 0; k < n; ++k) aggregate.Add(*ParseSampleRecord(bytes));
    expected_total += n;
  }
  HexNamer namer;
  const auto folded = FoldedStacks(aggregate.Counts(), namer, {}, AttributeNames()).Lines();
  ASSERT_EQ(folded.size(), 20000u);
  uint64_t total = 0;
  for (const auto& [stack, n] : folded) {
    total += n;
    EXPECT_EQ(stack.find("[truncated]"), std::string::npos);
  }
  EXPECT_EQ(total, expected_total);
  const std::string trace = "trace_000000000000000000000000000000ab;span_00000000000000cd";
  // Root first, the innermost frame is not a return address.
  EXPECT_EQ(folded.at(absl::StrCat(trace, ";u400;u500;u1007!")), 2u);
  EXPECT_EQ(aggregate.stack_counts().depth_limited, 0u);
}

// A compiled innermost frame stopped in its own entry or exit code is named by its method alone:
// no inlined frame inside it; its callers keep theirs.
TEST(ProfileStacks, InnermostOwnCodeHasNoInlinedFrames) {
  SampleAggregate aggregate;
  const std::vector<uint8_t> bytes = Record(1, {0x30, 0x20}, {});  // the records point into it
  SampleRecord in_body = *ParseSampleRecord(bytes);
  aggregate.Add(in_body);
  SampleRecord in_entry = in_body;
  in_entry.stacks.innermost_own_code = true;
  aggregate.Add(in_entry);
  aggregate.Add(in_entry);
  HexNamer namer;
  namer.inlining = true;
  const auto folded = FoldedStacks(aggregate.Counts(), namer, {}, AttributeNames()).Lines();
  const std::string trace = "trace_000000000000000000000000000000ab;span_00000000000000cd";
  EXPECT_EQ(folded.at(absl::StrCat(trace, ";u20;i20;u30!;i30")), 1u);
  EXPECT_EQ(folded.at(absl::StrCat(trace, ";u20;i20;u30!")), 2u);
}

TEST(ProfileStacks, IncompleteStacksAreMarkedAndCounted) {
  SampleAggregate aggregate(/*by_thread=*/true);
  const std::vector<uint64_t> full(VTCTX_MAX_STACK_DEPTH, 0x77);
  aggregate.Add(*ParseSampleRecord(Record(5, full, {})));
  aggregate.Add(*ParseSampleRecord(Record(5, {}, {0xf1}, -14)));
  aggregate.Add(*ParseSampleRecord(Record(6, {0x10}, {0xf2, 0xf3})));
  EXPECT_EQ(aggregate.stack_counts().depth_limited, 1u);
  EXPECT_EQ(aggregate.stack_counts().user_failed, 1u);
  HexNamer namer;
  const std::vector<SampleCount> counts = aggregate.Counts();
  const auto folded = FoldedStacks(counts, namer, {}, AttributeNames()).Lines();
  const std::string trace = "trace_000000000000000000000000000000ab;span_00000000000000cd";
  EXPECT_EQ(folded.count(absl::StrCat(trace, ";[no user stack];kf1_[k]")), 1u);
  EXPECT_EQ(folded.count(absl::StrCat(trace, ";u10!;kf3_[k];kf2_[k]")), 1u);
  bool truncated = false;
  for (const auto& [stack, n] : folded) {
    truncated |= stack.rfind(absl::StrCat(trace, ";[truncated];u77;"), 0) == 0;
  }
  EXPECT_TRUE(truncated);

  const PprofProfile pprof = PprofSamples(counts, namer, AttributeNames());
  ASSERT_EQ(pprof.samples.size(), 3u);
  int marked = 0;
  for (const PprofSample& s : pprof.samples) {
    const std::string& outermost = pprof.texts.Text(s.frames.back().name);
    marked += outermost == "[truncated]" || outermost == "[no user stack]";
    EXPECT_EQ(s.number_labels.at(0).first, "thread.id");
  }
  EXPECT_EQ(marked, 2);
}

}  // namespace
}  // namespace vtctx::reader
