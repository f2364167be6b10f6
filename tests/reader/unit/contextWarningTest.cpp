// The no-context warning (commands/contextWarning.h) and the agent's status block as the reader
// reads it (target/agentStatusRead.h): each cause named, the block found only where a vtctx
// process context names it with the right layout and magic.
#include <gtest/gtest.h>

#include <string>

#include "commands/contextWarning.h"
#include "fakeMemory.h"
#include "target/agentStatusRead.h"
#include "vtctx/processContextHeader.h"

namespace vtctx::reader {
namespace {

vtctx_agent_status Status(uint64_t served, uint64_t refused, uint64_t publishing) {
  return {VTCTX_STATUS_MAGIC,
          VTCTX_STATUS_LAYOUT,
          served ? VTCTX_SHIM_ORIGIN_OTEL_EXTENSION : 0u,
          served,
          refused,
          publishing};
}

WriterFacts Vtctx(std::optional<vtctx_agent_status> status, std::string channel = "carrier",
                  bool followed_identity = false) {
  WriterFacts f;
  f.vtctx = true;
  f.channel = std::move(channel);
  f.followed_identity = followed_identity;
  f.status = status;
  return f;
}

TEST(ContextWarning, NoneWhenEnoughSamplesCarriedAContext) {
  EXPECT_EQ(ContextWarning(5, 100, "samples", Vtctx(Status(1, 0, 3))), "");
  EXPECT_EQ(ContextWarning(1, 99, "samples", Vtctx(Status(1, 0, 3))), "");  // few, but < 100
  EXPECT_EQ(ContextWarning(0, 0, "samples", Vtctx(Status(0, 0, 0))), "");   // nothing sampled
}

TEST(ContextWarning, NoneOrFewNameTheirCount) {
  EXPECT_NE(ContextWarning(0, 3, "samples", Vtctx(Status(1, 0, 3))).find("0 of 3 samples"),
            std::string::npos);
  EXPECT_NE(ContextWarning(9, 1000, "events", Vtctx(Status(1, 0, 3))).find("9 of 1000 events"),
            std::string::npos);
}

TEST(ContextWarning, EachCauseIsNamed) {
  auto cause = [](const WriterFacts& f) { return ContextWarning(0, 500, "samples", f); };
  WriterFacts not_vtctx;
  EXPECT_NE(cause(not_vtctx).find("no vtctx agent"), std::string::npos);
  EXPECT_NE(cause(Vtctx(Status(1, 0, 0), "identity", false)).find("channel=identity"),
            std::string::npos);
  EXPECT_NE(cause(Vtctx(std::nullopt)).find("no status block"), std::string::npos);
  EXPECT_NE(cause(Vtctx(Status(0, 2, 0))).find("refused 2 copies of the shim"), std::string::npos);
  EXPECT_NE(cause(Vtctx(Status(0, 0, 0))).find("serves no shim"), std::string::npos);
  EXPECT_NE(cause(Vtctx(Status(1, 0, 0))).find("no thread has published"), std::string::npos);
  EXPECT_NE(cause(Vtctx(Status(1, 0, 7))).find("7 threads published"), std::string::npos);
  // Following the writer's identity channel is no mismatch.
  EXPECT_EQ(cause(Vtctx(Status(1, 0, 7), "identity", true)).find("channel=identity"),
            std::string::npos);
}

constexpr uint64_t kBlock = 0x7000;

ProcessContext ContextNaming(std::string address, std::string layout) {
  ProcessContext context;
  context.status = ProcessContext::Status::kOk;
  auto text = [](std::string key, std::string value) {
    KeyValue kv;
    kv.key = std::move(key);
    kv.value.kind = AnyValue::Kind::kString;
    kv.value.text = std::move(value);
    return kv;
  };
  context.payload.extra.push_back(text(VTCTX_PCTX_KEY_VTCTX_STATUS, std::move(address)));
  context.payload.extra.push_back(text(VTCTX_PCTX_KEY_VTCTX_STATUS_LAYOUT, std::move(layout)));
  return context;
}

TEST(AgentStatusRead, ReadsTheBlockTheContextNames) {
  FakeMemory memory;
  const vtctx_agent_status written = Status(2, 1, 40);
  memory.Put(kBlock, &written, sizeof written);
  absl::StatusOr<vtctx_agent_status> read = ReadAgentStatus(ContextNaming("0x7000", "1"), memory);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->shims_served, 2u);
  EXPECT_EQ(read->shims_refused, 1u);
  EXPECT_EQ(read->publishing_threads, 40u);
  EXPECT_NE(DescribeAgentStatus(*read).find("serves 2 shims (OpenTelemetry Java agent extension)"),
            std::string::npos);
}

TEST(AgentStatusRead, RefusesWhatIsNotTheBlock) {
  FakeMemory memory;
  vtctx_agent_status wrong = Status(1, 0, 0);
  wrong.magic = 0;
  memory.Put(kBlock, &wrong, sizeof wrong);
  EXPECT_TRUE(absl::IsNotFound(ReadAgentStatus(ProcessContext{}, memory).status()));
  EXPECT_TRUE(absl::IsDataLoss(ReadAgentStatus(ContextNaming("0x7000", "1"), memory).status()));
  EXPECT_TRUE(absl::IsDataLoss(ReadAgentStatus(ContextNaming("0x9000", "1"), memory).status()));
  EXPECT_TRUE(absl::IsFailedPrecondition(
      ReadAgentStatus(ContextNaming("0x7000", "2"), memory).status()));  // another layout
  EXPECT_TRUE(absl::IsFailedPrecondition(
      ReadAgentStatus(ContextNaming("7000", "1"), memory).status()));  // not 0x-hex
}

}  // namespace
}  // namespace vtctx::reader
