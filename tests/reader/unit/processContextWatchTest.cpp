// The lazy key-map refresh of the streaming commands (processContextWatch.h) with a fake clock,
// fake maps and fake memory: which events cause a check, when the payload is re-read, and what
// survives a bad publication.
#include <gtest/gtest.h>

#include <cstring>

#include "fakeMemory.h"
#include "processContextPublisher.h"  // tls-publish: the agent's encoder
#include "target/processContextWatch.h"

namespace vtctx::reader {
namespace {

constexpr uint64_t kHeader = 0x10000;

class WatchTest : public ::testing::Test {
 protected:
  // Publishes `keys` with timestamp `at` (payload at a fresh address, like the agent's arena).
  void Publish(const std::vector<std::string>& keys, uint64_t at) {
    std::string payload;
    ASSERT_EQ(EncodeProcessContext({{"service.name", "svc"}}, keys, &payload), "");
    PublishBytes(payload, at);
  }
  void PublishBytes(const std::string& payload, uint64_t at) {
    next_payload_ += 0x10000;
    memory_.Put(next_payload_, payload.data(), payload.size());
    vtctx_pctx_header h{};
    std::memcpy(h.signature, "OTEL_CTX", 8);
    h.version = 2;
    h.payload_size = static_cast<uint32_t>(payload.size());
    h.published_at_ns = at;
    h.payload = next_payload_;
    memory_.Put(kHeader, &h, sizeof h);
    mapped_ = true;
  }
  std::unique_ptr<ProcessContextWatch> Watch() {
    return std::make_unique<ProcessContextWatch>(
        [this]() -> absl::StatusOr<std::vector<Mapping>> {
          ++scans_;
          if (!mapped_) return std::vector<Mapping>{};
          return std::vector<Mapping>{
              {kHeader, kHeader + 4096, 0, 0, 1, 9, true, false, "/memfd:OTEL_CTX (deleted)"}};
        },
        memory_, [this] { return now_; });
  }

  FakeMemory memory_;
  uint64_t next_payload_ = 0x100000;
  bool mapped_ = false;
  uint64_t now_ = 1000;
  int scans_ = 0;
};

const std::vector<uint8_t> kIndex0 = {0, 1, 'x'};
const std::vector<uint8_t> kIndex1 = {1, 1, 'y'};

TEST_F(WatchTest, ChecksOnlyEventsNewerThanTheLastCheckAndRereadsOnlyOnChange) {
  Publish({"a"}, 100);
  auto w = Watch();  // initial read at t=1000
  ASSERT_TRUE(w->context().ok());
  EXPECT_EQ(w->names().size(), 1u);
  EXPECT_EQ(w->rereads(), 1u);
  // Named index: nothing to do.
  EXPECT_FALSE(w->Refresh(kIndex0, 5000));
  EXPECT_EQ(w->checks(), 0u);
  // An unnamed index in an event from before the initial read: that read saw everything
  // published before the event, so nothing can name it.
  EXPECT_FALSE(w->Refresh(kIndex1, 900));
  EXPECT_EQ(w->checks(), 0u);
  // A newer event: one timestamp check; unchanged, so no re-read.
  now_ = 2000;
  EXPECT_FALSE(w->Refresh(kIndex1, 1500));
  EXPECT_EQ(w->checks(), 1u);
  EXPECT_EQ(w->rereads(), 1u);
  // Events older than that check are not checked again, however many.
  for (int i = 0; i < 100; ++i) EXPECT_FALSE(w->Refresh(kIndex1, 1999));
  EXPECT_EQ(w->checks(), 1u);
  // The key is published; an event after that: checked, re-read, named.
  Publish({"a", "b"}, 200);
  now_ = 3000;
  EXPECT_TRUE(w->Refresh(kIndex1, 2500));
  EXPECT_EQ(w->checks(), 2u);
  EXPECT_EQ(w->rereads(), 2u);
  ASSERT_NE(w->names().Find(1), nullptr);
  EXPECT_EQ(*w->names().Find(1), "b");
  EXPECT_FALSE(w->Refresh(kIndex1, 4000));  // named now: no check
  EXPECT_EQ(w->checks(), 2u);
}

TEST_F(WatchTest, AbsentContextIsRescannedAtMostOncePerInterval) {
  auto w = Watch();
  EXPECT_EQ(w->context().status, ProcessContext::Status::kAbsent);
  EXPECT_EQ(scans_, 1);
  now_ = 1000 + kRescanIntervalNs / 2;
  EXPECT_FALSE(w->Refresh(kIndex0, now_ - 1));  // too soon after the first scan
  EXPECT_EQ(scans_, 1);
  Publish({"late"}, 300);  // e.g. the agent attached after the reader started
  now_ = 1000 + kRescanIntervalNs;
  EXPECT_TRUE(w->Refresh(kIndex0, now_ - 1));
  EXPECT_EQ(scans_, 2);
  ASSERT_TRUE(w->context().ok());
  EXPECT_EQ(w->names().Label(0), "late");
}

TEST_F(WatchTest, ABadPublicationKeepsTheNamesAndIsNotRereadAgain) {
  Publish({"a"}, 100);
  auto w = Watch();
  PublishBytes("\x0f", 200);  // does not decode
  now_ = 2000;
  EXPECT_FALSE(w->Refresh(kIndex1, 1500));
  EXPECT_EQ(w->rereads(), 2u);
  EXPECT_EQ(w->names().Label(0), "a");  // key maps are append-only: old names stay right
  now_ = 3000;
  EXPECT_FALSE(w->Refresh(kIndex1, 2500));
  EXPECT_EQ(w->checks(), 2u);
  EXPECT_EQ(w->rereads(), 2u);  // the same broken publication is not read again
  Publish({"a", "b"}, 300);
  now_ = 4000;
  EXPECT_TRUE(w->Refresh(kIndex1, 3500));
  EXPECT_EQ(w->names().Label(1), "b");
}

TEST_F(WatchTest, AnUnreadableContextRecoversWhenRepublished) {
  PublishBytes("\x0f", 100);
  auto w = Watch();
  EXPECT_EQ(w->context().status, ProcessContext::Status::kInvalid);
  EXPECT_EQ(w->names().size(), 0u);
  Publish({"a", "b"}, 200);
  now_ = 2000;
  EXPECT_TRUE(w->Refresh(kIndex1, 1500));
  ASSERT_TRUE(w->context().ok());
  EXPECT_EQ(w->names().Label(1), "b");
}

}  // namespace
}  // namespace vtctx::reader
