// The process-context read protocol on scripted memory (updates racing the reader, bad headers,
// unreadable payloads), the mapping search, and the real tls-publish publisher (the agent's) read
// through process_vm_readv while writer threads append keys.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <functional>
#include <thread>

#include "fakeMemory.h"
#include "processContextPublisher.h"  // tls-publish: the agent's publisher
#include "target/processContextReader.h"

namespace vtctx::reader {
namespace {

constexpr uint64_t kHeader = 0x10000;
constexpr uint64_t kPayload = 0x20000;
constexpr uint64_t kPayload2 = 0x30000;

std::string AgentPayload(const std::vector<std::string>& keys) {
  std::string payload;
  EXPECT_EQ(EncodeProcessContext({{"service.name", "svc"}}, keys, &payload), "");
  return payload;
}

// FakeMemory with a hook that runs before every read (the n-th read, its address): lets a test
// play a writer that updates the context between two reads of the reader.
class ScriptedMemory final : public MemoryReader {
 public:
  FakeMemory mem;
  std::function<void(int, uint64_t)> before_read;
  int reads = 0;

  absl::Status Read(uint64_t address, void* out, size_t size) override {
    if (before_read) before_read(reads, address);
    ++reads;
    return mem.Read(address, out, size);
  }

  void PutHeader(uint64_t published_at, uint64_t payload, uint32_t size, uint32_t version = 2,
                 const char* signature = "OTEL_CTX") {
    vtctx_pctx_header h{};
    std::memcpy(h.signature, signature, 8);
    h.version = version;
    h.payload_size = size;
    h.published_at_ns = published_at;
    h.payload = payload;
    mem.Put(kHeader, &h, sizeof h);
  }
  void SetPublishedAt(uint64_t t) { mem.PutU64(kHeader + VTCTX_PCTX_OFFSET_PUBLISHED_AT_NS, t); }
  void PutPayload(uint64_t at, const std::string& p) { mem.Put(at, p.data(), p.size()); }
};

TEST(ContextSnapshot, ReadsAConsistentSnapshot) {
  ScriptedMemory m;
  const std::string p = AgentPayload({"a"});
  m.PutPayload(kPayload, p);
  m.PutHeader(1234, kPayload, static_cast<uint32_t>(p.size()));
  auto snap = ReadContextSnapshot(m, kHeader);
  ASSERT_TRUE(snap.ok()) << snap.status();
  EXPECT_EQ(snap->header.published_at_ns, 1234u);
  EXPECT_EQ(std::string(snap->payload.begin(), snap->payload.end()), p);
  EXPECT_EQ(m.reads, 4);  // timestamp, header, payload, timestamp
}

TEST(ContextSnapshot, WaitsOutAnUpdateInProgress) {
  ScriptedMemory m;
  const std::string p = AgentPayload({"a"});
  m.PutPayload(kPayload, p);
  m.PutHeader(0, kPayload, static_cast<uint32_t>(p.size()));
  m.before_read = [&](int n, uint64_t) {
    if (n == 3) m.SetPublishedAt(77);  // the writer finishes after the reader saw 0 three times
  };
  auto snap = ReadContextSnapshot(m, kHeader);
  ASSERT_TRUE(snap.ok()) << snap.status();
  EXPECT_EQ(snap->header.published_at_ns, 77u);
}

TEST(ContextSnapshot, RetriesWhenTheContextChangedDuringTheRead) {
  // The reader reads the old header, then the writer swaps in a new payload before the reader
  // reads the old payload's bytes: the second timestamp read differs, so the (possibly torn)
  // payload is discarded and the next attempt returns the new context whole.
  ScriptedMemory m;
  const std::string old_payload = AgentPayload({"a"});
  const std::string new_payload = AgentPayload({"a", "b"});
  m.PutPayload(kPayload, old_payload);
  m.PutPayload(kPayload2, new_payload);
  m.PutHeader(100, kPayload, static_cast<uint32_t>(old_payload.size()));
  m.before_read = [&](int n, uint64_t address) {
    if (n == 2) {
      ASSERT_EQ(address, kPayload);  // the old payload, read after the header
      m.PutHeader(200, kPayload2, static_cast<uint32_t>(new_payload.size()));
      m.PutPayload(kPayload, std::string(old_payload.size(), '\xff'));  // old bytes now garbage
    }
  };
  auto snap = ReadContextSnapshot(m, kHeader);
  ASSERT_TRUE(snap.ok()) << snap.status();
  EXPECT_EQ(snap->header.published_at_ns, 200u);
  EXPECT_EQ(std::string(snap->payload.begin(), snap->payload.end()), new_payload);
  EXPECT_EQ(m.reads, 8);
}

TEST(ContextSnapshot, AnUnreadablePayloadIsRetriedIfTheContextChanged) {
  ScriptedMemory m;
  const std::string p = AgentPayload({"a"});
  m.PutPayload(kPayload2, p);
  m.PutHeader(100, 0x999000, static_cast<uint32_t>(p.size()));  // not mapped
  m.before_read = [&](int n, uint64_t) {
    if (n == 3) m.PutHeader(200, kPayload2, static_cast<uint32_t>(p.size()));
  };
  auto snap = ReadContextSnapshot(m, kHeader);
  ASSERT_TRUE(snap.ok()) << snap.status();
  EXPECT_EQ(snap->header.published_at_ns, 200u);
}

TEST(ContextSnapshot, Failures) {
  const std::string p = AgentPayload({});
  const uint32_t size = static_cast<uint32_t>(p.size());
  struct Case {
    const char* what;
    std::function<void(ScriptedMemory&)> setup;
    absl::StatusCode code;
    const char* message;
  };
  const Case cases[] = {
      {"signature", [&](ScriptedMemory& m) { m.PutHeader(1, kPayload, size, 2, "OTEL_CTY"); },
       absl::StatusCode::kInvalidArgument, "signature"},
      {"version 1", [&](ScriptedMemory& m) { m.PutHeader(1, kPayload, size, 1); },
       absl::StatusCode::kInvalidArgument, "version 1"},
      {"version 3", [&](ScriptedMemory& m) { m.PutHeader(1, kPayload, size, 3); },
       absl::StatusCode::kInvalidArgument, "version 3"},
      {"size 0", [&](ScriptedMemory& m) { m.PutHeader(1, kPayload, 0); },
       absl::StatusCode::kInvalidArgument, "payload size 0"},
      {"size 65537", [&](ScriptedMemory& m) { m.PutHeader(1, kPayload, 65537); },
       absl::StatusCode::kInvalidArgument, "payload size 65537"},
      {"payload unreadable", [&](ScriptedMemory& m) { m.PutHeader(1, 0x999000, size); },
       absl::StatusCode::kDataLoss, "unreadable"},
      {"always updating", [&](ScriptedMemory& m) { m.PutHeader(0, kPayload, size); },
       absl::StatusCode::kUnavailable, "changed during each"},
      {"header unmapped", [](ScriptedMemory&) {}, absl::StatusCode::kOutOfRange, "unmapped"},
  };
  for (const Case& c : cases) {
    ScriptedMemory m;
    m.PutPayload(kPayload, p);
    c.setup(m);
    auto snap = ReadContextSnapshot(m, kHeader);
    ASSERT_FALSE(snap.ok()) << c.what;
    EXPECT_EQ(snap.status().code(), c.code) << c.what << ": " << snap.status();
    EXPECT_NE(snap.status().message().find(c.message), std::string::npos)
        << c.what << ": " << snap.status();
  }
  // The size limit itself is accepted.
  ScriptedMemory m;
  m.PutPayload(kPayload, std::string(65536, '\0'));
  m.PutHeader(1, kPayload, 65536);
  EXPECT_TRUE(ReadContextSnapshot(m, kHeader).ok());
}

constexpr char kMaps[] =
    "7f0000000000-7f0000001000 rw-p 00000000 00:01 1 /memfd:OTEL_CTX (deleted)\n"
    "7f0000010000-7f0000011000 r--p 00000000 00:01 2 /memfd:OTEL_CTX\n"
    "7f0000020000-7f0000021000 rw-s 00000000 00:01 3 [anon_shmem:OTEL_CTX]\n"
    "7f0000030000-7f0000031000 rw-p 00000000 00:00 0 [anon:OTEL_CTX]\n"
    "7f0000040000-7f0000041000 r-xp 00000000 00:00 0 [anon:OTEL_CTX]\n"   // executable
    "7f0000050000-7f0000051000 ---p 00000000 00:00 0 [anon:OTEL_CTX]\n"   // not readable
    "7f0000060000-7f0000061000 rw-p 00000000 00:01 4 /memfd:OTEL_CTX2\n"  // another name
    "7f0000070000-7f0000071000 rw-p 00000000 00:01 5 /memfd:otel_ctx\n"
    "7f0000080000-7f0000081000 rw-p 00000000 00:00 0 [anon:OTEL_CTX] \n"
    "7f0000090000-7f0000091000 rw-p 00000000 00:00 0 \n";

TEST(ContextMapping, AcceptedNamesOnly) {
  const std::vector<Mapping> found = FindContextMappings(ParseMaps(kMaps));
  ASSERT_EQ(found.size(), 4u);
  EXPECT_EQ(found[0].start, 0x7f0000000000u);
  EXPECT_EQ(found[1].path, "/memfd:OTEL_CTX");
  EXPECT_EQ(found[2].path, "[anon_shmem:OTEL_CTX]");
  EXPECT_EQ(found[3].path, "[anon:OTEL_CTX]");
}

TEST(ContextMapping, NoneOneOrAmbiguous) {
  ScriptedMemory m;
  const std::string p = AgentPayload({"x"});
  m.PutPayload(kPayload, p);
  m.PutHeader(5, kPayload, static_cast<uint32_t>(p.size()));
  ProcessContext c = ReadProcessContext(std::vector<Mapping>{}, m);
  EXPECT_EQ(c.status, ProcessContext::Status::kAbsent);
  EXPECT_EQ(c.reason, "no OTEL_CTX mapping");
  Mapping one{kHeader, kHeader + 4096, 0, 0, 1, 7, true, false, "/memfd:OTEL_CTX (deleted)"};
  c = ReadProcessContext(std::vector<Mapping>{one}, m);
  ASSERT_TRUE(c.ok()) << c.reason;
  EXPECT_EQ(c.address, kHeader);
  EXPECT_EQ(c.mapping_name, "/memfd:OTEL_CTX (deleted)");
  EXPECT_EQ(c.thread.key_map, std::vector<std::string>{"x"});
  EXPECT_TRUE(c.NamesAttributes());
  EXPECT_EQ(NamesOf(c).Label(0), "x");
  EXPECT_EQ(DescribeLimitation(c, 42), "");
  Mapping two = one;
  two.start += 0x10000;
  two.end += 0x10000;
  c = ReadProcessContext(std::vector<Mapping>{one, two}, m);
  EXPECT_EQ(c.status, ProcessContext::Status::kInvalid);
  EXPECT_NE(c.reason.find("2 OTEL_CTX mappings"), std::string::npos) << c.reason;
  EXPECT_EQ(NamesOf(c).size(), 0u);
}

TEST(ContextOutput, JsonAndText) {
  ScriptedMemory m;
  const std::string p = AgentPayload({"http.route", "user.id"});
  m.PutPayload(kPayload, p);
  m.PutHeader(99, kPayload, static_cast<uint32_t>(p.size()));
  const ProcessContext c = ReadProcessContextAt(kHeader, "/memfd:OTEL_CTX (deleted)", m);
  ASSERT_TRUE(c.ok()) << c.reason;
  EXPECT_EQ(ProcessContextJson(c),
            "{\"status\":\"ok\",\"mapping\":\"/memfd:OTEL_CTX (deleted)\",\"address\":\"0x10000\","
            "\"published_at_ns\":99,\"payload_size\":" +
                std::to_string(p.size()) +
                ",\"resource\":{\"service.name\":\"svc\"},\"schema_version\":\"tlsdesc_v1_dev\","
                "\"schema_supported\":true,\"attribute_key_map\":[\"http.route\",\"user.id\"]}");
  EXPECT_EQ(
      ProcessContextText(c),
      "process context (OTEP 4719) at 0x10000 /memfd:OTEL_CTX (deleted), published_at_ns 99, " +
          std::to_string(p.size()) +
          " bytes:\n"
          "  resource service.name=\"svc\"\n"
          "  threadlocal.schema_version=\"tlsdesc_v1_dev\"\n"
          "  threadlocal.attribute_key_map: 0=\"http.route\" 1=\"user.id\"\n");
  ProcessContext absent;
  absent.reason = "no OTEL_CTX mapping";
  EXPECT_EQ(ProcessContextJson(absent),
            "{\"status\":\"absent\",\"reason\":\"no OTEL_CTX mapping\"}");
  EXPECT_NE(DescribeLimitation(absent, 7).find("pid 7 has no OTEP 4719 process context"),
            std::string::npos);
}

// The agent's publisher (tls-publish) in this process, read through process_vm_readv like another
// process would, including while it is being updated.
TEST(LivePublisher, ReadsWhatThePublisherPublished) {
  ProcessContextPublisher pub;
  ASSERT_EQ(
      pub.Publish({{"service.name", "unit"}, {"telemetry.sdk.language", "java"}}, {"http.route"}),
      "");
  const uint64_t address = reinterpret_cast<uint64_t>(pub.header());
  auto memory = ProcessMemory::Open(getpid());
  ASSERT_TRUE(memory.ok()) << memory.status();
  absl::StatusOr<std::vector<Mapping>> maps = ReadMaps(getpid());
  ASSERT_TRUE(maps.ok());
  bool listed = false;
  for (const Mapping& m : FindContextMappings(*maps)) listed = listed || m.start == address;
  EXPECT_TRUE(listed) << "the publisher's page is not found in /proc/self/maps";

  ProcessContext c = ReadProcessContextAt(address, "self", **memory);
  ASSERT_TRUE(c.ok()) << c.reason;
  ASSERT_EQ(c.payload.resource.size(), 2u);
  EXPECT_EQ(c.payload.resource[0].value.text, "unit");
  EXPECT_EQ(c.thread.key_map, std::vector<std::string>{"http.route"});
  const uint64_t first = c.header.published_at_ns;
  ASSERT_EQ(pub.RegisterKey("user.id").index, 1);
  c = ReadProcessContextAt(address, "self", **memory);
  ASSERT_TRUE(c.ok()) << c.reason;
  EXPECT_GT(c.header.published_at_ns, first);
  EXPECT_EQ(c.thread.key_map, (std::vector<std::string>{"http.route", "user.id"}));
}

TEST(LivePublisher, ConcurrentAppendsNeverTearARead) {
  ProcessContextPublisher pub;
  ASSERT_EQ(pub.Publish({{"service.name", "unit"}}, {}), "");
  const uint64_t address = reinterpret_cast<uint64_t>(pub.header());
  auto memory = ProcessMemory::Open(getpid());
  ASSERT_TRUE(memory.ok());
  constexpr int kWriters = 4, kKeysEach = 60;  // 240 keys: near the 255-key limit
  std::atomic<int> writers_left{kWriters};
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      for (int k = 0; k < kKeysEach; ++k) {
        // Appended: GCC 12 reports a false -Wrestrict for "w" + std::to_string(w) + ... at -O3.
        std::string key = "w";
        key += std::to_string(w);
        key += ".k";
        key += std::to_string(k);
        EXPECT_GE(pub.RegisterKey(key).index, 0);
      }
      writers_left.fetch_sub(1);
    });
  }
  // Read until the writers are done, then once more: every successful read decodes, and the key
  // maps only ever grow (each a prefix of the next, timestamps increasing).
  std::vector<std::string> previous;
  uint64_t previous_at = 0;
  int reads = 0, distinct = 0;
  for (bool last = false; !last;) {
    last = writers_left.load() == 0;
    ProcessContext c = ReadProcessContextAt(address, "self", **memory);
    ++reads;
    if (!c.ok()) {
      // Only a read that met an update every time may fail, never a torn payload.
      EXPECT_NE(c.reason.find("changed during each"), std::string::npos) << c.reason;
      ASSERT_FALSE(last);
      continue;
    }
    const std::vector<std::string>& keys = c.thread.key_map;
    ASSERT_GE(keys.size(), previous.size());
    ASSERT_TRUE(std::equal(previous.begin(), previous.end(), keys.begin()))
        << "a key map that does not extend the previous one";
    ASSERT_GE(c.header.published_at_ns, previous_at);
    if (c.header.published_at_ns != previous_at) ++distinct;
    previous = keys;
    previous_at = c.header.published_at_ns;
  }
  for (std::thread& t : writers) t.join();
  EXPECT_EQ(previous, pub.keys());
  EXPECT_EQ(previous.size(), static_cast<size_t>(kWriters * kKeysEach));
  std::printf("%d reads, %d distinct snapshots\n", reads, distinct);
}

}  // namespace
}  // namespace vtctx::reader
